import type { TEventResult, TWorkflowChange } from "@engram/contract";
import { type Caller, requireScope, resolveAgent } from "../access/caller";
import type { Clock } from "../kernel/clock";
import { scopeKey } from "../kernel/scope-key";
import type { Store } from "../store";
import { BatchQueue, TEXT_WRITE_LIMITS } from "../writes/batch-queue";
import type { IdempotentResult } from "../writes/idempotency";
import { type Decision, writeIdempotentBatch } from "../writes/idempotent-batch";
import type { WriteBatch } from "../writes/ports";
import { eventAnswer } from "./event-answer";
import { derivedEventKey, eventRequestHash } from "./event-key";
import { eventKeys } from "./event-ledger";
import { type EventPlan, type EventSubmission, planEvent } from "./event-plan";
import type { WorkflowKey } from "./ports";
import type { EventInput, WorkflowStateRecord } from "./records";

export type { EventInput } from "./records";

type Outcome = IdempotentResult<TEventResult>;

const workflowKeyId = (key: WorkflowKey) => scopeKey(key, key.workflow, key.subject, key.track);

/** Developer-event ingestion: exactly once per key and environment for as long as the event is stored, in batched transactions. */
export function eventIngestion(store: Store, { clock }: { clock: Clock }) {
  const queue = new BatchQueue<EventSubmission, Outcome>((batch) =>
    writeIdempotentBatch(store, batch, {
      ledger: eventKeys(store),
      clock,
      decide: (writers) => decideEvents(store, writers),
      replayed: (body) => ({ ...body, replayed: true }),
    }),
    TEXT_WRITE_LIMITS,
  );

  return {
    async ingest(caller: Caller, input: EventInput, idempotencyKey: string | undefined): Promise<Outcome> {
      requireScope(caller, "memory:write");
      // Events are organization-wide; an agent-bound token may not write outside its agents.
      resolveAgent(caller, undefined, undefined);
      const hash = eventRequestHash(input);
      return queue.submit({
        caller,
        input,
        key: idempotencyKey ?? derivedEventKey(input, hash),
        keySource: idempotencyKey ? "header" : "derived",
        hash,
        receivedAt: clock(),
      });
    },
    countByType: (orgId: string) => store.events.countByType(orgId),
    workflows: (orgId: string, environment: Caller["environment"]) => store.workflows.list(orgId, environment),
  };
}

export type EventIngestion = ReturnType<typeof eventIngestion>;

/** Decides each new event's answer and rows; the batch's workflow moves are applied in arrival order. */
async function decideEvents(store: Store, writers: EventSubmission[]) {
  const plans = writers.map(planEvent);
  const changes = await moveWorkflows(store, plans);
  const decisions: Array<Decision<TEventResult>> = plans.map((plan, i) => {
    const body = eventAnswer(plan.event, plan.candidate ? [plan.candidate.memory.id] : [], changes.perPlan[i]!);
    return { status: 201, body, write: (batch: WriteBatch) => writeEvent(batch, plan, body) };
  });
  return { decisions, writeShared: (batch: WriteBatch) => batch.moveWorkflows(changes.moves) };
}

function writeEvent(batch: WriteBatch, plan: EventPlan, answer: TEventResult): void {
  batch.insertEvents([{ event: plan.event, answer }]);
  if (plan.candidate) batch.insertMemories([plan.candidate.memory], [plan.candidate.history]);
}

/**
 * Applies the batch's workflow moves in arrival order, from the states stored when it was decided; returns each
 * plan's change, and each workflow's final state with the stored one it replaces (the write's compare-and-set).
 */
async function moveWorkflows(store: Store, plans: EventPlan[]) {
  const keys = new Map<string, WorkflowKey>();
  for (const plan of plans) if (plan.workflowMove) keys.set(workflowKeyId(plan.workflowMove.key), plan.workflowMove.key);
  const stored = new Map<string, WorkflowStateRecord>();
  for (const record of await store.workflows.findMany([...keys.values()])) stored.set(workflowKeyId(record), record);

  const current = new Map(stored);
  const touched = new Set<string>();
  const perPlan = plans.map((plan): TWorkflowChange[] => {
    const move = plan.workflowMove;
    if (!move) return [];
    const id = workflowKeyId(move.key);
    const before = current.get(id);
    const at = plan.event.receivedAt;
    current.set(id, { ...move.key, state: move.state, details: move.details, lastEventId: plan.event.id, updatedAt: at, createdAt: before?.createdAt ?? at });
    touched.add(id);
    return [{ workflow: move.key.workflow, subject: move.key.subject, track: move.key.track || null, from: before?.state ?? null, to: move.state }];
  });
  const moves = [...touched].map((id) => ({ state: current.get(id)!, replacing: stored.get(id)?.lastEventId ?? null }));
  return { perPlan, moves };
}
