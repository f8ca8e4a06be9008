import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { Sql } from "./sql";
import type { SqlReads } from "./sql-reads";
import { sqliteValue } from "./sqlite-connection";

/** Statements the thread keeps prepared, by text; others are prepared again each time. */
const PREPARED_KEPT = 100;

/**
 * The thread's body: plain CommonJS, so it runs alike from source, under the tests and from the bundle. It opens
 * the database read-only and answers each statement with its rows, or with the failure's message and code (the
 * driver's errors do not cross threads). With the write-ahead log a reader never waits for a writer; a lock
 * met otherwise is waited out here, off the event loop.
 */
const READER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true, timeout: workerData.busyTimeoutMs });
const prepared = new Map();
parentPort.on("message", ({ id, sql, values }) => {
  try {
    let statement = prepared.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      if (prepared.size < workerData.preparedKept) prepared.set(sql, statement);
    }
    parentPort.postMessage({ id, rows: statement.all(...values) });
  } catch (error) {
    parentPort.postMessage({ id, failure: { message: String((error && error.message) || error), code: error && error.code } });
  }
});
`;

type Answer = { id: number; rows: unknown[] } | { id: number; failure: { message: string; code?: string } };

export interface ThreadReads extends SqlReads {
  /** Ends the thread; reads still waiting fail. */
  close(): Promise<void>;
}

/**
 * Reads that scan a whole environment (the reflection metrics' aggregates) on a connection in a thread of their
 * own. The driver answers synchronously, so on the store's connection one such statement held the event loop for
 * as long as it scanned, which grows with the environment (docs/security.md). The thread starts with the first
 * read and again after it ends; it keeps the process alive only while a read waits.
 */
export function sqliteReadThread(file: string, busyTimeoutMs: number): ThreadReads {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const waiting = new Map<number, { resolve(rows: unknown[]): void; reject(error: Error): void }>();
  let nextId = 0;
  let thread: Worker | null = null;

  const failWaiting = (error: Error) => {
    for (const read of waiting.values()) read.reject(error);
    waiting.clear();
  };

  function started(): Worker {
    if (thread) return thread;
    const worker = new Worker(READER, { eval: true, workerData: { file, driver, busyTimeoutMs, preparedKept: PREPARED_KEPT } });
    worker.on("message", (answer: Answer) => {
      const read = waiting.get(answer.id);
      waiting.delete(answer.id);
      if (waiting.size === 0) worker.unref();
      if (!read) return;
      if ("rows" in answer) read.resolve(answer.rows);
      // The code lets the store's retry recognise a busy database (SQLITE_BUSY) as it does the driver's own errors.
      else read.reject(Object.assign(new Error(answer.failure.message), { code: answer.failure.code }));
    });
    worker.on("error", (error) => failWaiting(error instanceof Error ? error : new Error(`the read thread failed: ${String(error)}`)));
    worker.once("exit", () => {
      if (thread === worker) thread = null;
      failWaiting(new Error("the read thread ended"));
    });
    return (thread = worker);
  }

  return {
    rows<T>(statement: Sql): Promise<T[]> {
      return new Promise<T[]>((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, { resolve: resolve as (rows: unknown[]) => void, reject });
        const worker = started();
        worker.ref();
        worker.postMessage({ id, sql: statement.sql, values: statement.values.map(sqliteValue) });
      });
    },
    async close() {
      const worker = thread;
      thread = null;
      await worker?.terminate();
    },
  };
}
