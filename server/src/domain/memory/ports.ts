import type { TEnvironment, TMemoryState } from "@engram/contract";
import type { PagePosition } from "../kernel/page-cursor";
import type { HistoryRecord, MemoryRecord, StoredHistoryEntry } from "./records";

/** Where a caller may look: one organization and environment, optionally one agent's boundary. */
export interface MemoryScope {
  orgId: string;
  environment: TEnvironment;
  /** When set, only this agent's memories and the organization's shared ones are visible. */
  agentSlug: string | null;
}

/** Memories of one organization's environment in any of `states`, narrowed by the optional fields. */
/** One state's memories in one organization's environment, every agent's. */
export interface MemoryListScope {
  orgId: string;
  environment: TEnvironment;
  state: TMemoryState;
}

/** A memory to write: its id is chosen before writing so the answer can name it up front. */
export type PlannedMemory = Omit<MemoryRecord, "reinforcementCount" | "lastReinforcedAt" | "recentUses" | "updatedAt">;

/** Reading and changing memories one by one; retrieval's search reads are its own port (retrieval/ports). */
export interface MemoryRepository {
  findVisible(scope: MemoryScope, id: string): Promise<MemoryRecord | null>;
  /** Memories by id, in no particular order; for reading the few that retrieval returns. */
  findManyByIds(ids: readonly string[]): Promise<MemoryRecord[]>;
  /** Any memory by id, for organization administrators (no agent or environment boundary). */
  findById(id: string): Promise<MemoryRecord | null>;
  listByState(orgId: string, environment: TEnvironment | null, state: TMemoryState, limit: number): Promise<MemoryRecord[]>;
  /** Up to `limit` memories matching the filter, newest first (createdAt, then id, descending), after `before`. */
  /** Newest first along the scope index, after `before`: at most `limit`, read without sorting. */
  listNewest(scope: MemoryListScope, before: PagePosition | null, limit: number): Promise<MemoryRecord[]>;
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
  /** `addUse` is given the time the use takes: `at`, or just after the latest history entry (see appendHistory). */
  recordReinforcement(id: string, at: Date, addUse: (recentUses: readonly Date[], at: Date) => Date[]): Promise<MemoryRecord>;
  /**
   * Appends an entry for a change that holds the memory's row: at its time, or just after the latest entry when a
   * change that committed first took a later one (the memory's updatedAt moved with it), so the history lists the
   * changes in the order they committed. Returns the time the entry took.
   */
  appendHistory(entry: HistoryRecord): Promise<Date>;
  /** A memory's history, oldest first (by time, then id), after `after` when given, at most `limit` entries. */
  history(memoryId: string, after: PagePosition | null, limit: number): Promise<StoredHistoryEntry[]>;
  /** What superseded a durable memory (reflection's link) and its confidence before it was lowered; null when nothing did. */
  supersession(id: string): Promise<Supersession | null>;
  /**
   * Compare-and-set in one statement, as changeState: undoes the supersession by `supersededBy` (the link
   * cleared, remembered as dismissed, the confidence set back), or answers null when the memory is no longer
   * durable and superseded by it.
   */
  dismissSupersession(id: string, supersededBy: string, confidence: number, at: Date): Promise<MemoryRecord | null>;
}

export interface Supersession {
  supersededBy: string;
  /** The confidence reflection lowered, when its event recorded it. */
  previousConfidence: number | null;
}
