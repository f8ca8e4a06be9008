import type { TEnvironment } from "@engram/contract";
import type { BusinessEventRecord, WorkflowStateRecord } from "../events/records";
import type { PlannedMemory } from "../memory/ports";
import type { HistoryRecord } from "../memory/records";

/** The first answer given under an idempotency key, repeated to every retry. */
export interface StoredResponse {
  requestHash: string;
  status: number;
  body: unknown;
}

export interface IdempotencyKeyScope {
  orgId: string;
  environment: TEnvironment;
  route: string;
  key: string;
}

export interface StoredKey extends StoredResponse {
  key: string;
  expired: boolean;
}

export interface KeyClaim {
  scope: IdempotencyKeyScope;
  response: StoredResponse;
}

export interface IdempotencyRepository {
  /** The stored answers for several keys of one organization, environment and route, expired ones marked. */
  findMany(scope: Omit<IdempotencyKeyScope, "key">, keys: readonly string[], now: Date): Promise<StoredKey[]>;
  /** Deletes at most `limit` records expired by `now`; answers how many. */
  deleteExpired(now: Date, limit: number): Promise<number>;
}

/** Writes queued by a batch and committed together: all of them or none. */
export interface WriteBatch {
  /** Removes the named keys' expired records so the keys can be used afresh. */
  deleteExpiredKeys(scope: Omit<IdempotencyKeyScope, "key">, keys: readonly string[], now: Date): void;
  /** Stores each answer under its key; a key already taken fails the batch with DuplicateKeyError. */
  claimKeys(claims: readonly KeyClaim[], now: Date, expiresAt: Date): void;
  /** Registers agents on their first write; existing ones are left as they are. */
  ensureAgents(agents: ReadonlyArray<{ orgId: string; slug: string }>, at: Date): void;
  /** Events with their answers; a key already taken in the event's environment fails the batch with DuplicateKeyError. */
  insertEvents(events: ReadonlyArray<{ event: BusinessEventRecord; answer: unknown }>): void;
  /** Memories with their first history entries. */
  insertMemories(memories: readonly PlannedMemory[], history: readonly HistoryRecord[]): void;
  /**
   * Moves each workflow to its new state, compare-and-set: from the state last set by `replacing` (its
   * lastEventId), or from none stored when null. A workflow another process moved meanwhile fails the batch
   * with DuplicateKeyError, to be decided again; keys must be distinct.
   */
  moveWorkflows(moves: ReadonlyArray<{ state: WorkflowStateRecord; replacing: string | null }>): void;
}
