import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * How many pages the write-ahead log may hold before a commit of the store's own connections copies them into
 * the database (SQLite's automatic checkpoint, 1,000 pages by default). With checkpoints in the background the
 * log never gets near it; it bounds the log should the checkpointing thread stop.
 */
export const BACKSTOP_CHECKPOINT_PAGES = 10_000;

/** How often the thread copies what the log holds into the database. */
export const CHECKPOINT_EVERY_MS = 100;

/**
 * The thread's body: plain CommonJS, so it runs alike from source, under the tests and from the bundle. A
 * passive checkpoint never waits for a lock and copies only what no reader still needs; one that fails is
 * reported (as text: the driver's errors do not cross threads) and tried again at the next tick.
 */
const CHECKPOINTER = `
const { parentPort, workerData } = require("node:worker_threads");
const report = (error) => parentPort.postMessage(String((error && error.message) || error));
function open() {
  try {
    const Database = require(workerData.driver);
    const db = new Database(workerData.file, { fileMustExist: true, timeout: 0 });
    db.pragma("synchronous = NORMAL");
    return db;
  } catch (error) {
    report(error);
    return null;
  }
}
const db = open();
if (db === null) {
  parentPort.close();
} else {
  const timer = setInterval(() => {
    try {
      db.pragma("wal_checkpoint(PASSIVE)");
    } catch (error) {
      report(error);
    }
  }, workerData.everyMs);
  parentPort.once("message", () => {
    clearInterval(timer);
    db.close();
    parentPort.close();
  });
}
`;

export interface BackgroundCheckpoints {
  /** Stops the thread once its checkpoint in progress, if any, is done. */
  stop(): Promise<void>;
}

/**
 * Checkpoints the database's write-ahead log from a thread of its own. Left to SQLite, the commit that fills
 * the log copies it into the database and waits for the disk on the event loop (docs/performance.md, item 27);
 * the store's connections then only checkpoint past BACKSTOP_CHECKPOINT_PAGES.
 */
export function checkpointInBackground(file: string, onError: (error: Error) => void): BackgroundCheckpoints {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(CHECKPOINTER, { eval: true, workerData: { file, driver, everyMs: CHECKPOINT_EVERY_MS } });
  // The store's close stops it; until then it must not keep the process alive by itself.
  worker.unref();
  const exited = new Promise((resolve) => worker.once("exit", resolve));
  worker.on("message", (message: string) => onError(new Error(`background checkpoint failed: ${message}`)));
  worker.on("error", (error) => onError(error instanceof Error ? error : new Error(`background checkpoint failed: ${JSON.stringify(error)}`)));
  return {
    async stop() {
      // Held by its exit from here: a process with nothing else to do would otherwise end before the thread does.
      worker.ref();
      worker.postMessage("stop");
      await exited;
    },
  };
}
