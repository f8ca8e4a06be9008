import type { TMemoryState, TReflectionAction, TReflectionProcess } from "@engram/contract";
import type { PagePosition } from "../kernel/page-cursor";
import type { ProcessCounts, ReflectionEventRecord, ReflectionMemory, ReflectionRunRecord, ReflectionScope, RunTrigger } from "./records";

export type { PagePosition };

/** One change reflection makes to one memory, with the event that explains it. */
export interface ReflectionChange {
  memoryId: string;
  process: TReflectionProcess;
  action: TReflectionAction;
  reason: string;
  relatedId?: string | null;
  details?: Record<string, unknown>;
}

export interface ReflectionMemoryRepository {
  /**
   * Up to `limit` memories of the scope in these states, oldest first, after `after`: fewer when their text and
   * analysed text together would pass `maxBytes` (as stored), but one at least. Empty only past the last.
   */
  page(scope: ReflectionScope, states: readonly TMemoryState[], after: PagePosition | null, limit: number, maxBytes?: number): Promise<ReflectionMemory[]>;
  /**
   * Moves the memory from `from` to `to` only if it is still `from` (compare-and-set), with its history row
   * (actor `reflection`) and the reflection event, in the caller's transaction; false when it had changed.
   * `links` sets reflection's links and flags at the same time.
   */
  changeState(
    scope: ReflectionScope,
    runId: string,
    change: ReflectionChange & { from: TMemoryState; to: TMemoryState; links?: { duplicateOfId?: string | null; supersededBy?: string | null } },
    at: Date,
  ): Promise<boolean>;
  /**
   * Locks these memories' rows for the rest of the caller's transaction, in id order. A transaction takes them
   * before its first change: a change takes the scope's collection row (through the collection triggers) after
   * its memory's row, as a person's change does, so a transaction that held the collection row while waiting for
   * a memory a person had locked would wait in a circle with that person.
   */
  lock(scope: ReflectionScope, memoryIds: readonly string[]): Promise<void>;
  /** Adds a use to a durable memory (a merged duplicate's survivor), with its history row and the event. */
  reinforce(scope: ReflectionScope, runId: string, change: ReflectionChange, at: Date): Promise<boolean>;
  /**
   * Sets flags without a state change (stale, superseded, a lower confidence), only if the memory is still in
   * `state`, with a history row and the event.
   */
  flag(
    scope: ReflectionScope,
    runId: string,
    change: ReflectionChange & { state: TMemoryState; set: { staleSince?: Date | null; supersededBy?: string | null; confidence?: number } },
    at: Date,
  ): Promise<boolean>;
  /** Stores activation snapshots for many memories in one statement per batch (no history: nothing changed). */
  setActivations(scope: ReflectionScope, values: ReadonlyArray<{ id: string; activation: number }>, at: Date): Promise<number>;
  /** Resolved workflow subjects and when, per workflow (incidents, pull requests…), for staleness. */
  workflowStates(scope: ReflectionScope): Promise<Array<{ workflow: string; subject: string; state: string; lastEventId: string; updatedAt: Date }>>;
  /** How many events of the scope share each (type, subject) of the given events, for corroboration. */
  eventOccurrences(scope: ReflectionScope, eventIds: readonly string[]): Promise<Map<string, number>>;
}

/**
 * Reflection's memories, on the driver (Prisma's query compiler would cost most of their time). A run times its
 * waits for the database on a meter of its own, for its pauses.
 */
export interface ReflectionMemoryStore {
  /** Reads, and changes each made in a transaction of its own. */
  memories: ReflectionMemoryRepository;
  /** Runs `work` in one transaction: all of its changes commit, or none. */
  transaction<T>(work: (memories: ReflectionMemoryRepository) => Promise<T>): Promise<T>;
}

export interface ReflectionRunRepository {
  /** Starts a run; null when one is already running in the scope (the one-running index). */
  start(scope: ReflectionScope, run: { trigger: RunTrigger; triggeredBy: string | null; owner: string; leaseUntil: Date; at: Date }): Promise<ReflectionRunRecord | null>;
  /** Takes over a running run whose lease has passed (its process died); null when none is free. */
  takeOverExpired(owner: string, now: Date, leaseUntil: Date): Promise<ReflectionRunRecord | null>;
  /** Extends the lease, only while `owner` holds it; false when another process took the run over. */
  renew(runId: string, owner: string, leaseUntil: Date): Promise<boolean>;
  /** Records a finished process's counts and progress, only while `owner` holds the lease. */
  saveProgress(runId: string, owner: string, counts: ProcessCounts, progress: ReflectionRunRecord["progress"], errors: ReflectionRunRecord["errors"]): Promise<boolean>;
  finish(runId: string, owner: string, status: "completed" | "failed", at: Date): Promise<boolean>;
  find(scope: ReflectionScope, runId: string): Promise<ReflectionRunRecord | null>;
  running(scope: ReflectionScope): Promise<ReflectionRunRecord | null>;
  /** Newest first. */
  list(scope: ReflectionScope, before: PagePosition | null, limit: number): Promise<ReflectionRunRecord[]>;
  /** When the scope's last run started, for the scheduler. */
  lastStarted(scope: ReflectionScope): Promise<Date | null>;
}

export interface ReflectionEventFilter {
  process?: TReflectionProcess;
  action?: TReflectionAction;
  from?: Date;
  to?: Date;
}

export interface ReflectionEventRepository {
  /** Newest first. */
  list(scope: ReflectionScope, filter: ReflectionEventFilter, before: PagePosition | null, limit: number): Promise<ReflectionEventRecord[]>;
}

export interface ReflectionSettingsRepository {
  find(orgId: string): Promise<{ settings: unknown; version: number; updatedAt: Date; updatedBy: string } | null>;
  /** Writes the settings only if the stored version is still `expected` (0: none stored yet). */
  save(orgId: string, settings: unknown, expected: number, at: Date, by: string): Promise<boolean>;
}
