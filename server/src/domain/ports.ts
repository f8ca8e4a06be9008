import type { TEnvironment, TMemoryState } from "@engram/contract";
import type {
  BusinessEventRecord,
  HistoryRecord,
  MemoryRecord,
  OrganizationRecord,
  Plan,
  StoredResponse,
  TokenRecord,
  WorkflowStateRecord,
  WriteMode,
} from "./records";

/** The narrow storage interfaces the domain depends on; `db/` implements them. */

export interface OrganizationRepository {
  create(input: { name: string; plan: Plan; founderWorkspace: boolean; environmentsEnabled: boolean }): Promise<OrganizationRecord>;
  find(id: string): Promise<OrganizationRecord | null>;
  list(): Promise<OrganizationRecord[]>;
  count(): Promise<number>;
  updateWriteMode(id: string, writeMode: WriteMode): Promise<OrganizationRecord>;
}

export interface NewToken {
  orgId: string;
  name: string;
  tokenHash: string;
  prefix: string;
  scopes: string[];
  environment: TEnvironment | null;
  agentSlugs: string[] | null;
}

export interface TokenRepository {
  create(token: NewToken): Promise<TokenRecord>;
  /** The live token with this hash and the organization settings every request needs, in one read. */
  findActiveByHash(tokenHash: string): Promise<{ token: TokenRecord; org: Pick<OrganizationRecord, "environmentsEnabled" | "writeMode" | "plan"> } | null>;
  list(orgId: string): Promise<TokenRecord[]>;
  /** Marks the token revoked; false when no such token exists. */
  revoke(id: string, at: Date): Promise<boolean>;
}

/** Where a caller may look: one organization and environment, optionally one agent's boundary. */
export interface MemoryScope {
  orgId: string;
  environment: TEnvironment;
  /** When set, only this agent's memories and the organization's shared ones are visible. */
  agentSlug: string | null;
}

/** What BM25 statistics are counted over: one organization's memories in one environment, whatever the agent. */
export type CollectionScope = Pick<MemoryScope, "orgId" | "environment">;

/** What ranking needs of a memory found by full-text search, with the analysed terms the index holds. */
export interface SearchCandidate extends Pick<MemoryRecord, "id" | "subject" | "confidence" | "reinforcementCount" | "recentUses" | "createdAt"> {
  searchTerms: readonly string[];
}

/**
 * One full-text lookup: durable memories in scope holding any of `terms`, or for every one of `groups`
 * (a query word's alternative terms) at least one of its terms; best first by the backend's full-text
 * rank or newest first, at most `limit`.
 */
export type CandidateQuery = { order: "relevance" | "newest"; limit: number } & (
  | { match: "any"; terms: readonly string[] }
  | { match: "all"; groups: readonly (readonly string[])[] }
);

/** A memory to write: its id is chosen before writing so the answer can name it up front. */
export type PlannedMemory = Omit<MemoryRecord, "reinforcementCount" | "lastReinforcedAt" | "recentUses" | "updatedAt">;

export interface MemoryRepository {
  findVisible(scope: MemoryScope, id: string): Promise<MemoryRecord | null>;
  /** A scope's durable memories: how many, their average number of terms, and how many hold each term. */
  collectionTotals(scope: CollectionScope): Promise<{ documents: number; averageLength: number }>;
  documentFrequencies(scope: CollectionScope, terms: readonly string[]): Promise<number[]>;
  /** Memories by id, in no particular order; for reading the few that retrieval returns. */
  findManyByIds(ids: readonly string[]): Promise<MemoryRecord[]>;
  /** Any memory by id, for organization administrators (no agent or environment boundary). */
  findById(id: string): Promise<MemoryRecord | null>;
  listByState(orgId: string, environment: TEnvironment | null, state: TMemoryState, limit: number): Promise<MemoryRecord[]>;
  searchDurable(scope: MemoryScope, query: CandidateQuery): Promise<SearchCandidate[]>;
  /** The durable memories in scope among `ids` (found another way, e.g. by meaning), as candidates. */
  durableCandidates(scope: MemoryScope, ids: readonly string[]): Promise<SearchCandidate[]>;
  /**
   * Compare-and-set in one statement: moves the memory from `from` to `to` and answers it, or answers null
   * when it is no longer in `from` (another request changed it first). Call it first in a transaction, so
   * the change and its history row commit together and the transaction starts by writing.
   */
  changeState(id: string, from: TMemoryState, to: TMemoryState, at: Date): Promise<MemoryRecord | null>;
  /**
   * Counts a reinforcement and adds its use time through `addUse`, under the row's write lock (taken by the
   * first statement), so concurrent reinforcements each count and none loses another's use time.
   */
  recordReinforcement(id: string, at: Date, addUse: (recentUses: readonly Date[]) => Date[]): Promise<MemoryRecord>;
  appendHistory(entry: HistoryRecord): Promise<void>;
  history(memoryId: string): Promise<HistoryRecord[]>;
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
  deleteExpired(now: Date): Promise<number>;
}

export type WorkflowKey = Pick<WorkflowStateRecord, "orgId" | "environment" | "workflow" | "subject" | "track">;

/** An event as stored, with the answer its first ingestion gave. */
export interface StoredEvent {
  event: BusinessEventRecord;
  /** The answer first given; null for events stored before answers were kept. */
  answer: unknown;
  /** The candidates made from it; read only for events without a stored answer. */
  candidateIds: string[];
}

export interface EventRepository {
  find(id: string): Promise<BusinessEventRecord | null>;
  /** The events stored under these keys in one organization and environment. */
  findByKeys(scope: { orgId: string; environment: TEnvironment }, keys: readonly string[]): Promise<StoredEvent[]>;
  /** How many events of each type an organization has received, per environment. */
  countByType(orgId: string): Promise<Array<{ environment: TEnvironment; type: string; known: boolean; count: number }>>;
}

export interface WorkflowRepository {
  findMany(keys: readonly WorkflowKey[]): Promise<WorkflowStateRecord[]>;
  list(orgId: string, environment: TEnvironment): Promise<WorkflowStateRecord[]>;
}

/** Turns texts into unit vectors of one model; the semantic half of retrieval, when configured. */
export interface Embedder {
  readonly model: string;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/** A memory's vector from the configured embeddings model. */
export interface MemoryVector {
  memoryId: string;
  orgId: string;
  environment: TEnvironment;
  model: string;
  vector: Float32Array;
}

/** What needs embedding: a durable memory's subject and text, and where its vector will be searched. */
export interface EmbeddingTask {
  memoryId: string;
  orgId: string;
  environment: TEnvironment;
  agentSlug: string | null;
  subject: string | null;
  text: string;
  createdAt: Date;
}

export interface EmbeddingRepository {
  /** Stores vectors, replacing any earlier ones; vectors of memories since tombstoned are not kept. */
  save(vectors: readonly MemoryVector[], at: Date): Promise<void>;
  /**
   * One scope's vectors of `model` stored at or after `since`, oldest first, with each memory's agent;
   * pages continue from the last one's `storedAt`.
   */
  listSince(
    scope: { orgId: string; environment: TEnvironment },
    model: string,
    since: Date | null,
    limit: number,
  ): Promise<Array<MemoryVector & { agentSlug: string | null; storedAt: Date }>>;
  /** Durable memories that have no vector of `model` yet, oldest first, after the `after` memory. */
  missing(model: string, after: Pick<EmbeddingTask, "memoryId" | "createdAt"> | null, limit: number): Promise<EmbeddingTask[]>;
  remove(memoryId: string): Promise<void>;
}

/** One rate-limit counter: an organization's requests of one route group in one environment. */
export interface RateLimitKey {
  orgId: string;
  environment: TEnvironment;
  routeGroup: string;
}

export interface RateLimitRepository {
  /**
   * Adds `amount` to the counter of the window starting at `windowStart` (whole minutes since the epoch)
   * in one atomic statement, creating it at need, and answers the counter's new value.
   */
  add(key: RateLimitKey, windowStart: number, amount: number): Promise<number>;
  /** Deletes the counters of windows that started before `windowStart`. */
  deleteBefore(windowStart: number): Promise<number>;
}

export interface Repositories {
  organizations: OrganizationRepository;
  tokens: TokenRepository;
  memories: MemoryRepository;
  embeddings: EmbeddingRepository;
  idempotency: IdempotencyRepository;
  events: EventRepository;
  workflows: WorkflowRepository;
  rateLimits: RateLimitRepository;
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
  /** Inserts or replaces each workflow record; keys must be distinct. */
  upsertWorkflows(states: readonly WorkflowStateRecord[]): void;
}

export interface Store extends Repositories {
  /** Commits everything `build` queues in one transaction of multi-row statements, one per table. */
  writeAtomically(build: (batch: WriteBatch) => void): Promise<void>;
  readonly provider: "sqlite" | "postgres";
  /** Runs `work` in one database transaction; everything it writes commits or rolls back together. */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
