import type { TEnvironment } from "@engram/contract";
import type { TermCounts } from "@engram/retrieval";
import type { MemoryScope } from "../memory/ports";
import type { MemoryRecord } from "../memory/records";

/** What BM25 statistics are counted over: one organization's memories in one environment, whatever the agent. */
export type CollectionScope = Pick<MemoryScope, "orgId" | "environment">;

/** What ranking needs of a memory found by full-text search, with the analysed terms the index holds, counted. */
export interface SearchCandidate extends Pick<MemoryRecord, "id" | "subject" | "agentSlug" | "confidence" | "reinforcementCount" | "recentUses" | "createdAt"> {
  searchTerms: TermCounts;
}

/** A memory's place in its scope's time order: newest first is by `createdAt`, then by `id`, both descending. */
export type TimePosition = Pick<SearchCandidate, "createdAt" | "id">;

/**
 * One full-text lookup: durable memories in scope holding any of `terms`, or for every one of `groups`
 * (a query word's alternative terms) at least one of its terms; best first by the backend's full-text
 * rank or newest first, at most `limit`. A newest-first lookup may start after `olderThan`, reading only
 * memories that come after it in time order.
 */
export type CandidateQuery = { order: "relevance" | "newest"; limit: number; olderThan?: TimePosition } & (
  | { match: "any"; terms: readonly string[] }
  | { match: "all"; groups: readonly (readonly string[])[] }
);

/**
 * A scope's durable memories as BM25 counts them, exact as of the last committed write, with versions
 * that change whenever the durable set, a durable memory's ranking columns or the stored vectors change (by
 * any process).
 */
export interface CollectionState {
  documents: number;
  averageLength: number;
  version: bigint;
  vectorsVersion: bigint;
}

/** Document frequencies, in the order of the terms asked for, with the scope's version they were counted at. */
export interface CountedTerms {
  version: bigint;
  documents: number[];
}

/**
 * One durable memory's terms entering (+1) or leaving (-1) a scope's collection, or its ranking columns changing
 * while it stays with the same terms (0: reinforcement, confidence, subject), and the version whose write did it.
 * `terms` are those the backend counts (see MemorySearch.documentFrequencies), none for a 0; `candidate` is the
 * memory as read with the change (so as of that read, possibly later than the version), null when it no longer
 * exists.
 */
export interface CollectionChange {
  version: bigint;
  delta: 1 | 0 | -1;
  memoryId: string;
  candidate: SearchCandidate | null;
  terms: readonly string[];
}

/** A durable memory as a candidate, with the terms the backend counts. */
export interface RecentMemory {
  candidate: SearchCandidate;
  terms: readonly string[];
}

/** Which logged changes to read, and how many (and how much text) at most. */
export interface ChangeRange {
  after: bigint;
  upTo: bigint;
  limit: number;
  maxText: number;
}

/** A memory whose neighbours are wanted: found relevant, it lends relevance to the memories written around it. */
export type NeighbourAnchor = Pick<SearchCandidate, "id" | "createdAt"> & { agentSlug: string };

/** How far from an anchor a neighbour may be written, and how many are read on each side. */
export interface NeighbourWindow {
  ms: number;
  perSide: number;
}

export interface Neighbour {
  anchorId: string;
  candidate: SearchCandidate;
}

/** The full-text reads retrieval makes of the memories table. */
export interface MemorySearch {
  /** A scope's collection totals and versions (one keyed read), and how many durable memories hold each term. */
  collectionState(scope: CollectionScope): Promise<CollectionState>;
  /** How many durable memories hold each term, counted in one snapshot whose version comes with them. */
  documentFrequencies(scope: CollectionScope, terms: readonly string[]): Promise<CountedTerms>;
  /**
   * What the versions after `after` up to `upTo` changed, oldest first; null when they changed more than
   * `limit` memories or `maxText` characters of analysed text, or the log no longer holds them all (it keeps
   * a scope's last 1,024 versions or more).
   */
  collectionChanges(scope: CollectionScope, range: ChangeRange): Promise<CollectionChange[] | null>;
  /**
   * The scope's newest `limit` durable memories (after `olderThan` in time order when given), newest first, as
   * candidates with the terms the backend counts.
   */
  newestDurable(scope: CollectionScope, limit: number, olderThan?: TimePosition | null): Promise<RecentMemory[]>;
  searchDurable(scope: MemoryScope, query: CandidateQuery): Promise<SearchCandidate[]>;
  /** The durable memories in scope among `ids` (found another way, e.g. by meaning), as candidates. */
  durableCandidates(scope: MemoryScope, ids: readonly string[]): Promise<SearchCandidate[]>;
  /** For each anchor an agent wrote, that agent's durable memories in scope written nearest before and after it, within the window. */
  neighbours(scope: MemoryScope, anchors: readonly NeighbourAnchor[], within: NeighbourWindow): Promise<Neighbour[]>;
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
    scope: CollectionScope,
    model: string,
    since: Date | null,
    limit: number,
  ): Promise<Array<MemoryVector & { agentSlug: string | null; storedAt: Date }>>;
  /** Durable memories that have no vector of `model` yet, oldest first, after the `after` memory. */
  missing(model: string, after: Pick<EmbeddingTask, "memoryId" | "createdAt"> | null, limit: number): Promise<EmbeddingTask[]>;
  remove(memoryId: string): Promise<void>;
}
