import { AppError, DuplicateKeyError } from "./errors";
import { IDEMPOTENCY_TTL_MS, type IdempotentResult } from "./idempotency";
import { type IdempotencyKeyScope, type KeyClaim, keyScopeId, type StoredKey, type Store, type WriteBatch } from "./ports";
import type { Caller } from "./access";

/** One write waiting in a batch: who asks, under which key (if any), for which request. */
export interface KeyedSubmission {
  caller: Caller;
  /** The idempotency key; null when the request carries none and must always be written. */
  key: string | null;
  /** Hash of the request, to tell a retry from a different request under a reused key. */
  hash: string;
}

/** What one writer decided: the answer it will give and the rows it adds to the batch. */
export interface Decision<TBody> {
  status: number;
  body: TBody;
  write(batch: WriteBatch): void;
}

export interface IdempotentBatchOptions<TSubmission extends KeyedSubmission, TBody> {
  /** The route keys belong to, e.g. "memory.events". */
  route: string;
  /**
   * Decides every writer's answer and rows, in order, plus rows the batch writes once for all of them;
   * may read the store (it runs before the transaction).
   */
  decide(writers: TSubmission[]): Promise<{ decisions: Array<Decision<TBody>>; writeShared?(batch: WriteBatch): void }>;
  /** How a stored answer is repeated to a retry (e.g. marked as replayed). */
  replayed?(body: TBody): TBody;
}

const scopeOf = (route: string, submission: KeyedSubmission, key: string): IdempotencyKeyScope => ({
  orgId: submission.caller.orgId,
  environment: submission.caller.environment,
  route,
  key,
});

/**
 * Writes a batch exactly once per idempotency key: reads the answers already stored for its keys,
 * lets each key's first submission decide and write, and commits every row and every key claim in one
 * transaction. A batch that loses a key to another server process rolls back and is decided again,
 * finding that process's answer to repeat.
 */
export async function writeIdempotentBatch<TSubmission extends KeyedSubmission, TBody>(
  store: Store,
  batch: TSubmission[],
  options: IdempotentBatchOptions<TSubmission, TBody>,
): Promise<Array<IdempotentResult<TBody> | Error>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await decideAndWrite(store, batch, options);
    } catch (error) {
      if (error instanceof DuplicateKeyError && attempt < 3) continue;
      throw error;
    }
  }
}

async function decideAndWrite<TSubmission extends KeyedSubmission, TBody>(
  store: Store,
  batch: TSubmission[],
  { route, decide, replayed = (body) => body }: IdempotentBatchOptions<TSubmission, TBody>,
): Promise<Array<IdempotentResult<TBody> | Error>> {
  const now = new Date();
  const { live, expired } = await storedAnswers(store, route, batch, now);

  // The first submission of a key writes; later ones repeat its answer. Keyless ones always write.
  const keyIdOf = (submission: TSubmission) => (submission.key === null ? null : keyScopeId(scopeOf(route, submission, submission.key)));
  const writerOf = new Map<string, number>();
  const writerIndexes: number[] = [];
  batch.forEach((submission, index) => {
    const id = keyIdOf(submission);
    if (id === null) writerIndexes.push(index);
    else if (!live.has(id) && !writerOf.has(id)) {
      writerOf.set(id, index);
      writerIndexes.push(index);
    }
  });
  const { decisions, writeShared } = await decide(writerIndexes.map((index) => batch[index]!));
  const decisionAt = new Map(writerIndexes.map((index, i) => [index, decisions[i]!]));

  const claims: KeyClaim[] = writerIndexes.flatMap((index) => {
    const submission = batch[index]!;
    const decision = decisionAt.get(index)!;
    return submission.key === null ? [] : [{ scope: scopeOf(route, submission, submission.key), response: { requestHash: submission.hash, status: decision.status, body: decision.body } }];
  });
  await store.writeAtomically((write) => {
    for (const { scope, keys } of expired) write.deleteExpiredKeys(scope, keys, now);
    write.claimKeys(claims, now, new Date(now.getTime() + IDEMPOTENCY_TTL_MS));
    for (const decision of decisions) decision.write(write);
    writeShared?.(write);
  });

  return batch.map((submission, index) => {
    const own = decisionAt.get(index);
    if (own) return { status: own.status, body: own.body, replayed: false };
    const id = keyIdOf(submission)!;
    const stored = live.get(id);
    const first = stored ? { hash: stored.requestHash, status: stored.status, body: stored.body as TBody } : firstAnswer(batch, writerOf.get(id)!, decisionAt);
    if (first.hash !== submission.hash) {
      return new AppError(
        "idempotency_key_reused",
        "This Idempotency-Key was already used with a different request; use a new key for a new request.",
        "Idempotency-Key",
      );
    }
    return { status: first.status, body: replayed(first.body), replayed: true };
  });
}

function firstAnswer<TBody>(batch: KeyedSubmission[], writer: number, decisions: Map<number, Decision<TBody>>) {
  const decision = decisions.get(writer)!;
  return { hash: batch[writer]!.hash, status: decision.status, body: decision.body };
}

/** Stored answers for the batch's keys: the live ones, and per scope the expired keys to clear. */
async function storedAnswers(store: Store, route: string, batch: KeyedSubmission[], now: Date) {
  const groups = new Map<string, { scope: Omit<IdempotencyKeyScope, "key">; keys: string[] }>();
  for (const submission of batch) {
    if (submission.key === null) continue;
    const { key, ...scope } = scopeOf(route, submission, submission.key);
    const groupId = `${scope.orgId}\u0000${scope.environment}`;
    const group = groups.get(groupId) ?? { scope, keys: [] };
    group.keys.push(key);
    groups.set(groupId, group);
  }
  const live = new Map<string, StoredKey>();
  const expired: Array<{ scope: Omit<IdempotencyKeyScope, "key">; keys: string[] }> = [];
  for (const { scope, keys } of groups.values()) {
    const found = await store.idempotency.findMany(scope, keys, now);
    expired.push({ scope, keys: found.filter((record) => record.expired).map((record) => record.key) });
    for (const record of found) if (!record.expired) live.set(keyScopeId({ ...scope, key: record.key }), record);
  }
  return { live, expired };
}
