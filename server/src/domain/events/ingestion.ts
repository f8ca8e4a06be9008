import type { TEventResult, TWorkflowChange } from "@engram/contract";
import { type Caller, requireScope, resolveAgent } from "../access";
import { BatchQueue } from "../batch-queue";
import { AppError, DuplicateKeyError } from "../errors";
import { IDEMPOTENCY_TTL_MS, type IdempotentResult } from "../idempotency";
import { type IdempotencyKeyScope, type KeyClaim, keyScopeId, type StoredKey, type Store, type WorkflowKey } from "../ports";
import type { WorkflowStateRecord } from "../records";
import { derivedEventKey, eventRequestHash } from "./event-key";
import { type EventInput, type EventPlan, type EventSubmission, planEvent } from "./event-plan";

export type { EventInput } from "./event-plan";

type Outcome = IdempotentResult<TEventResult>;

const ROUTE = "memory.events";

const keyScopeOf = (submission: EventSubmission): IdempotencyKeyScope => ({
  orgId: submission.caller.orgId,
  environment: submission.caller.environment,
  route: ROUTE,
  key: submission.key,
});

/** Groups a batch's keys by organization and environment, one stored-answer read per group. */
const groupIdOf = (submission: EventSubmission) => `${submission.caller.orgId}\u0000${submission.caller.environment}`;

const workflowKeyId = (key: WorkflowKey) => [key.orgId, key.environment, key.workflow, key.subject, key.track].join("\u0000");

/** Developer-event ingestion (spec 6): exactly once per key and environment, in batched transactions. */
export function eventIngestion(store: Store) {
  const queue = new BatchQueue<EventSubmission, Outcome>((batch) => writeBatch(store, batch));

  return {
    async ingest(caller: Caller, input: EventInput, idempotencyKey: string | undefined): Promise<Outcome> {
      requireScope(caller, "memory:write");
      // Events are organization-wide; an agent-bound token may not write outside its agents.
      resolveAgent(caller, undefined, undefined);
      return queue.submit({
        caller,
        input,
        key: idempotencyKey ?? derivedEventKey(input),
        keySource: idempotencyKey ? "header" : "derived",
        hash: eventRequestHash(input),
        receivedAt: new Date(),
      });
    },
    countByType: (orgId: string) => store.events.countByType(orgId),
    workflows: (orgId: string, environment: Caller["environment"]) => store.workflows.list(orgId, environment),
  };
}

export type EventIngestion = ReturnType<typeof eventIngestion>;

/**
 * Writes a batch: reads what is already stored, decides every write, then commits them all in one
 * transaction. Claiming each key in that transaction makes ingestion exactly-once even across server
 * processes: a batch that loses a key to another process rolls back and is decided again.
 */
async function writeBatch(store: Store, batch: EventSubmission[]): Promise<Array<Outcome | Error>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await decideAndWrite(store, batch);
    } catch (error) {
      if (error instanceof DuplicateKeyError && attempt < 3) continue;
      throw error;
    }
  }
}

async function decideAndWrite(store: Store, batch: EventSubmission[]): Promise<Array<Outcome | Error>> {
  const now = new Date();
  const { live, expired } = await storedAnswers(store, batch, now);

  // Each key is written once: the first submission of a key writes, later ones repeat its answer.
  const writerOf = new Map<string, number>();
  for (const [index, submission] of batch.entries()) {
    const id = keyScopeId(keyScopeOf(submission));
    if (!live.has(id) && !writerOf.has(id)) writerOf.set(id, index);
  }
  const writers = [...writerOf.values()].map((index) => ({ submission: batch[index]!, plan: planEvent(batch[index]!) }));
  const changes = await moveWorkflows(store, writers.map((writer) => writer.plan));

  const answers = new Map<string, { hash: string; body: TEventResult }>();
  const claims: KeyClaim[] = writers.map(({ submission, plan }, i) => {
    const body = resultBody(submission, plan, changes.perPlan[i]!);
    answers.set(keyScopeId(keyScopeOf(submission)), { hash: submission.hash, body });
    return { scope: keyScopeOf(submission), response: { requestHash: submission.hash, status: 201, body } };
  });
  const candidates = writers.flatMap((writer) => (writer.plan.candidate ? [writer.plan.candidate] : []));

  await store.writeAtomically((write) => {
    for (const { scope, keys } of expired) write.deleteExpiredKeys(scope, keys, now);
    write.claimKeys(claims, now, new Date(now.getTime() + IDEMPOTENCY_TTL_MS));
    write.insertEvents(writers.map((writer) => writer.plan.event));
    write.insertMemories(
      candidates.map((c) => c.memory),
      candidates.map((c) => c.history),
    );
    write.upsertWorkflows(changes.finalStates);
  });

  return batch.map((submission, index) => {
    const id = keyScopeId(keyScopeOf(submission));
    const previous = live.get(id);
    if (previous) return answerFrom(previous.requestHash, previous.body as TEventResult, submission);
    const answer = answers.get(id)!;
    if (writerOf.get(id) === index) return { status: 201, body: answer.body, replayed: false };
    return answerFrom(answer.hash, answer.body, submission);
  });
}

/** Stored answers for the batch's keys: the live ones, and per scope the expired keys to clear. */
async function storedAnswers(store: Store, batch: EventSubmission[], now: Date) {
  const keysByScope = new Map<string, { scope: Omit<IdempotencyKeyScope, "key">; keys: string[] }>();
  for (const submission of batch) {
    const { key, ...scope } = keyScopeOf(submission);
    const group = keysByScope.get(groupIdOf(submission)) ?? { scope, keys: [] };
    group.keys.push(key);
    keysByScope.set(groupIdOf(submission), group);
  }
  const live = new Map<string, StoredKey>();
  const expired: Array<{ scope: Omit<IdempotencyKeyScope, "key">; keys: string[] }> = [];
  for (const { scope, keys } of keysByScope.values()) {
    const found = await store.idempotency.findMany(scope, keys, now);
    expired.push({ scope, keys: found.filter((record) => record.expired).map((record) => record.key) });
    for (const record of found) if (!record.expired) live.set(keyScopeId({ ...scope, key: record.key }), record);
  }
  return { live, expired };
}

/** Applies the batch's workflow moves in arrival order; returns each plan's change and the final states. */
async function moveWorkflows(store: Store, plans: EventPlan[]) {
  const keys = new Map<string, WorkflowKey>();
  for (const plan of plans) if (plan.workflowMove) keys.set(workflowKeyId(plan.workflowMove.key), plan.workflowMove.key);
  const current = new Map<string, WorkflowStateRecord>();
  for (const record of await store.workflows.findMany([...keys.values()])) current.set(workflowKeyId(record), record);

  const touched = new Set<string>();
  const perPlan = plans.map((plan): TWorkflowChange[] => {
    const move = plan.workflowMove;
    if (!move) return [];
    const id = workflowKeyId(move.key);
    const from = current.get(id)?.state ?? null;
    current.set(id, { ...move.key, state: move.state, details: move.details, lastEventId: plan.event.id, updatedAt: plan.event.receivedAt });
    touched.add(id);
    return [{ workflow: move.key.workflow, subject: move.key.subject, track: move.key.track || null, from, to: move.state }];
  });
  return { perPlan, finalStates: [...touched].map((id) => current.get(id)!) };
}

function resultBody(submission: EventSubmission, plan: EventPlan, workflowChanges: TWorkflowChange[]): TEventResult {
  const { event } = plan;
  const allowed = !event.effectsSuppressed;
  return {
    eventId: event.id,
    replayed: false,
    idempotencyKey: submission.key,
    keySource: submission.keySource,
    environment: event.environment,
    effects: { productionAutomation: allowed, notifications: allowed, externalWrites: allowed },
    records: {
      sourceKind: "developer_event",
      businessEvent: { id: event.id, type: event.type, subject: event.subject, source: event.source, receivedAt: event.receivedAt.toISOString() },
    },
    triage: {
      rule: event.triageRule,
      outcome: event.triageRule === null ? "unknown_type" : plan.candidate ? "candidate" : "recorded",
    },
    workflowChanges,
    candidateIds: plan.candidate ? [plan.candidate.memory.id] : [],
  };
}

/** The answer to a repeated key: the first answer again, or a conflict when the payload differs. */
function answerFrom(storedHash: string, body: TEventResult, submission: EventSubmission): Outcome | Error {
  if (storedHash !== submission.hash) {
    return new AppError(
      "idempotency_key_reused",
      "This Idempotency-Key was already used for a different event; use a new key for a new event.",
      "Idempotency-Key",
    );
  }
  return { status: 201, body: { ...body, replayed: true }, replayed: true };
}
