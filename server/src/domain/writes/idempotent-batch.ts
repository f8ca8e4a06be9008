import type { Caller } from "../access/caller";
import type { Clock } from "../kernel/clock";
import { AppError, DuplicateKeyError } from "../kernel/errors";
import { scopeKey } from "../kernel/scope-key";
import type { Store } from "../store";
import { IDEMPOTENCY_TTL_MS, type IdempotentResult } from "./idempotency";
import type { StoredResponse, WriteBatch } from "./ports";

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

/** The organization and environment a key belongs to. */
export type KeyScope = Pick<Caller, "orgId" | "environment">;

/** A key a batch takes, with the answer it will repeat. */
export interface NewKey {
  scope: KeyScope;
  key: string;
  response: StoredResponse;
}

/** Where a route keeps its keys and the first answer given under each. */
export interface KeyLedger {
  /** The answers stored under these keys of one scope, by key; `clear` queues the removal of keys now free again. */
  find(scope: KeyScope, keys: readonly string[], now: Date): Promise<{ answers: Map<string, StoredResponse>; clear?(batch: WriteBatch): void }>;
  /** Queues the claims of new keys; a key taken meanwhile fails the batch with DuplicateKeyError. */
  claim(batch: WriteBatch, claims: readonly NewKey[], now: Date): void;
}

/** Request keys kept for 24 hours in the idempotency table, under one route (e.g. "memory.encode"). */
export function requestKeys(store: Store, route: string): KeyLedger {
  return {
    async find(scope, keys, now) {
      const found = await store.idempotency.findMany({ ...scope, route }, keys, now);
      const expired = found.filter((record) => record.expired).map((record) => record.key);
      return {
        answers: new Map(found.filter((record) => !record.expired).map((record) => [record.key, record])),
        clear: (batch) => batch.deleteExpiredKeys({ ...scope, route }, expired, now),
      };
    },
    claim(batch, claims, now) {
      const expiresAt = new Date(now.getTime() + IDEMPOTENCY_TTL_MS);
      batch.claimKeys(claims.map(({ scope, key, response }) => ({ scope: { ...scope, route, key }, response })), now, expiresAt);
    },
  };
}

export interface IdempotentBatchOptions<TSubmission extends KeyedSubmission, TBody> {
  /** Where the keys live and for how long. */
  ledger: KeyLedger;
  /**
   * Decides every writer's answer and rows, in order, plus rows the batch writes once for all of them;
   * may read the store (it runs before the transaction).
   */
  decide(writers: TSubmission[]): Promise<{ decisions: Array<Decision<TBody>>; writeShared?(batch: WriteBatch): void }>;
  /** How a stored answer is repeated to a retry (e.g. marked as replayed). */
  replayed?(body: TBody): TBody;
  /** The clock key expiry is measured by. */
  clock: Clock;
}

/**
 * A batch is decided again each time another process commits first a key it claims or a workflow it moves:
 * every attempt lost is another's won, so only a subject moved by many processes at once takes several.
 */
const MAX_ATTEMPTS = 10;

const keyIdOf = (submission: KeyedSubmission) => (submission.key === null ? null : scopeKey(submission.caller, submission.key));

/**
 * Writes a batch exactly once per idempotency key: reads the answers already stored for its keys (a
 * lone request's only once its claim has failed), lets each key's first submission decide and write, and
 * commits every row and every key claim in one transaction. A batch that loses a key (or a workflow's move) to
 * another server process rolls back and is decided again, finding that process's answer to repeat (or its state).
 */
export async function writeIdempotentBatch<TSubmission extends KeyedSubmission, TBody>(
  store: Store,
  batch: TSubmission[],
  options: IdempotentBatchOptions<TSubmission, TBody>,
): Promise<Array<IdempotentResult<TBody> | Error>> {
  // A lone keyed write, the common case of a client waiting on one request, claims its key without reading it
  // first: one round trip instead of two. A key already taken fails the claim, and the next attempt reads it.
  let readKeys = batch.length > 1;
  for (let attempt = 1; ; attempt++) {
    try {
      return await decideAndWrite(store, batch, options, readKeys);
    } catch (error) {
      if (!(error instanceof DuplicateKeyError) || attempt >= MAX_ATTEMPTS) throw error;
      readKeys = true;
    }
  }
}

async function decideAndWrite<TSubmission extends KeyedSubmission, TBody>(
  store: Store,
  batch: TSubmission[],
  { ledger, decide, replayed = (body) => body, clock }: IdempotentBatchOptions<TSubmission, TBody>,
  readKeys: boolean,
): Promise<Array<IdempotentResult<TBody> | Error>> {
  const now = clock();
  const { stored, clears } = readKeys ? await storedAnswers(ledger, batch, now) : { stored: new Map<string, StoredResponse>(), clears: [] };

  // The first submission of a key writes; later ones repeat its answer. Keyless ones always write.
  const writerOf = new Map<string, number>();
  const writerIndexes: number[] = [];
  batch.forEach((submission, index) => {
    const id = keyIdOf(submission);
    if (id === null) writerIndexes.push(index);
    else if (!stored.has(id) && !writerOf.has(id)) {
      writerOf.set(id, index);
      writerIndexes.push(index);
    }
  });
  const { decisions, writeShared } = await decide(writerIndexes.map((index) => batch[index]!));
  const decisionAt = new Map(writerIndexes.map((index, i) => [index, decisions[i]!]));

  const claims: NewKey[] = writerIndexes.flatMap((index) => {
    const { caller, key, hash } = batch[index]!;
    const { status, body } = decisionAt.get(index)!;
    return key === null ? [] : [{ scope: { orgId: caller.orgId, environment: caller.environment }, key, response: { requestHash: hash, status, body } }];
  });
  await store.writeAtomically((write) => {
    for (const clear of clears) clear(write);
    ledger.claim(write, claims, now);
    for (const decision of decisions) decision.write(write);
    writeShared?.(write);
  });

  return batch.map((submission, index) => {
    const own = decisionAt.get(index);
    if (own) return { status: own.status, body: own.body, replayed: false };
    const id = keyIdOf(submission)!;
    const first = stored.get(id) ?? firstAnswer(batch, writerOf.get(id)!, decisionAt);
    if (first.requestHash !== submission.hash) {
      return new AppError(
        "idempotency_key_reused",
        "This Idempotency-Key was already used with a different request; use a new key for a new request.",
        "Idempotency-Key",
      );
    }
    return { status: first.status, body: replayed(first.body as TBody), replayed: true };
  });
}

function firstAnswer<TBody>(batch: KeyedSubmission[], writer: number, decisions: Map<number, Decision<TBody>>): StoredResponse {
  const decision = decisions.get(writer)!;
  return { requestHash: batch[writer]!.hash, status: decision.status, body: decision.body };
}

/** The stored answers for the batch's keys, by key id, and the writes that clear keys free again. */
async function storedAnswers(ledger: KeyLedger, batch: KeyedSubmission[], now: Date) {
  const groups = new Map<string, { scope: KeyScope; keys: string[] }>();
  for (const submission of batch) {
    if (submission.key === null) continue;
    const { orgId, environment } = submission.caller;
    const id = scopeKey(submission.caller);
    const group = groups.get(id) ?? { scope: { orgId, environment }, keys: [] };
    group.keys.push(submission.key);
    groups.set(id, group);
  }
  const stored = new Map<string, StoredResponse>();
  const clears: Array<(batch: WriteBatch) => void> = [];
  for (const group of groups.values()) {
    const { answers, clear } = await ledger.find(group.scope, group.keys, now);
    if (clear) clears.push(clear);
    for (const [key, answer] of answers) stored.set(scopeKey(group.scope, key), answer);
  }
  return { stored, clears };
}
