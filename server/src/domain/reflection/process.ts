import type { TReflectionProcess, TReflectionSettings } from "@engram/contract";
import type { Clock } from "../kernel/clock";
import type { ReflectionChange, ReflectionMemoryRepository } from "./ports";
import type { ReflectionScope } from "./records";

/** Memories read per page: on SQLite, among 100,000, a page of 200 takes 3.5-5 ms (in the store's read thread). */
export const REFLECTION_BATCH = 200;
/**
 * Bytes of text and analysed text read per page at most (a page holds one memory at least): 200 memories of
 * 8,000 × U+FDFA are 11 MB, and a page of 200 of them held the event loop for 0.4 s.
 */
export const REFLECTION_PAGE_BYTES = 512 * 1024;
/**
 * Changes committed per transaction, and activation snapshots per statement. On SQLite a statement holds the
 * event loop while it runs, so a run writes in small steps and yields between them: requests wait for one
 * step, never for a page. On the driver a transaction of two changes holds the loop 0.4 ms p50 (docs/reflection.md).
 */
export const CHANGES_PER_TRANSACTION = 2;
export const SNAPSHOTS_PER_STATEMENT = 50;
/** The most of a busy event loop's time a run takes: requests waiting get the rest. */
export const REFLECTION_SHARE = 0.25;

/** What a process works with during one run. */
export interface ReflectionContext {
  scope: ReflectionScope;
  runId: string;
  settings: TReflectionSettings;
  clock: Clock;
  /** Reads, and changes each made in its own short transaction, through the store. */
  memories: ReflectionMemoryRepository;
  /** Runs `work` in one transaction (a change and its history and event commit together). */
  transaction<T>(work: (memories: ReflectionMemoryRepository) => Promise<T>): Promise<T>;
  /** Lets requests waiting on the event loop run between batches. */
  pause(): Promise<void>;
}

export interface ProcessResult {
  examined: number;
  actions: number;
}

/**
 * One reflection process: reads the scope's memories in pages and changes some, each change explained by an
 * event. Running it again over unchanged data changes nothing. It never deletes a memory or its history.
 */
export interface ReflectionProcess {
  readonly name: TReflectionProcess;
  run(context: ReflectionContext): Promise<ProcessResult>;
}

export type { ReflectionChange };
