import type { TEnvironment } from "@engram/contract";
import type { Caller } from "../access";
import { newId } from "../ids";
import type { PlannedMemory, WorkflowKey } from "../ports";
import type { BusinessEventRecord, HistoryRecord, KeySource } from "../records";
import { triageRules, workflowDetails, workflowTrack } from "./triage-rules";

export interface EventInput {
  type: string;
  text: string;
  source?: string;
  subject?: string;
  metadata?: Record<string, unknown>;
}

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

/** Outside production, automation, notifications and external writes never act on an event */
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

  let candidate: EventPlan["candidate"] = null;
  if (rule?.candidate) {
    const actor = input.source ? `source:${input.source}` : `token:${caller.tokenName}`;
    const memory: PlannedMemory = {
      id: newId("mem"),
      orgId: caller.orgId,
      environment: caller.environment,
      agentSlug: null,
      text: input.text,
      subject: input.subject ?? null,
      memoryKind: rule.candidate.memoryKind,
      confidence: rule.candidate.confidence,
      state: "candidate",
      source: "developer_event",
      sourceRequestId: caller.requestId,
      sourceTokenId: caller.tokenId,
      sourceActor: actor,
      idempotencyKey: key,
      eventId: event.id,
      createdAt: receivedAt,
    };
    const history: HistoryRecord = {
      memoryId: memory.id,
      action: "created",
      fromState: null,
      toState: "candidate",
      actor,
      tokenId: caller.tokenId,
      reason: `triaged from ${input.type}`,
      requestId: caller.requestId,
      createdAt: receivedAt,
    };
    candidate = { memory, history };
  }

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
