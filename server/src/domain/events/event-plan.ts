import type { TEnvironment } from "@engram/contract";
import type { Caller } from "../access/caller";
import { newId } from "../kernel/ids";
import { newMemory } from "../memory/new-memory";
import type { PlannedMemory } from "../memory/ports";
import type { HistoryRecord } from "../memory/records";
import type { WorkflowKey } from "./ports";
import type { BusinessEventRecord, EventInput, KeySource } from "./records";
import { triageRules, workflowDetails, workflowTrack } from "./triage-rules";

/** One accepted event on its way into a batch. */
export interface EventSubmission {
  caller: Caller;
  input: EventInput;
  key: string;
  keySource: KeySource;
  hash: string;
  receivedAt: Date;
}

export interface EventPlan {
  event: BusinessEventRecord;
  candidate: { memory: PlannedMemory; history: HistoryRecord } | null;
  workflowMove: { key: WorkflowKey; state: string; details: Record<string, unknown> } | null;
}

/** Outside production, automation, notifications and external writes never act on an event. */
export function effectsSuppressedIn(environment: TEnvironment): boolean {
  return environment !== "production";
}

/** Everything one event will write, decided before the batch touches the database. */
export function planEvent({ caller, input, key, keySource, receivedAt }: EventSubmission): EventPlan {
  const rule = triageRules[input.type];
  const event: BusinessEventRecord = {
    id: newId("evt"),
    orgId: caller.orgId,
    environment: caller.environment,
    type: input.type,
    text: input.text,
    source: input.source ?? null,
    subject: input.subject ?? null,
    metadata: input.metadata ?? null,
    idempotencyKey: key,
    keySource,
    triageRule: rule ? input.type : null,
    effectsSuppressed: effectsSuppressedIn(caller.environment),
    tokenId: caller.tokenId,
    requestId: caller.requestId,
    receivedAt,
  };

  const candidate: EventPlan["candidate"] = rule?.candidate
    ? newMemory({
        caller,
        agentSlug: null,
        text: input.text,
        subject: input.subject ?? null,
        memoryKind: rule.candidate.memoryKind,
        confidence: rule.candidate.confidence,
        state: "candidate",
        source: "developer_event",
        actor: input.source ? `source:${input.source}` : `token:${caller.tokenName}`,
        idempotencyKey: key,
        eventId: event.id,
        reason: `triaged from ${input.type}`,
        at: receivedAt,
      })
    : null;

  // A workflow is about an entity: without a subject there is nothing to track.
  const workflowMove =
    rule?.workflow && input.subject
      ? {
          key: {
            orgId: caller.orgId,
            environment: caller.environment,
            workflow: rule.workflow.name,
            subject: input.subject,
            track: workflowTrack(rule.workflow.name, input.metadata),
          },
          state: rule.workflow.state,
          details: workflowDetails(input.metadata),
        }
      : null;

  return { event, candidate, workflowMove };
}
