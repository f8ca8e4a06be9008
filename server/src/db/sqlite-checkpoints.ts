import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { restartPause } from "../domain/kernel/restart-pause";

/** SQLite's own threshold: a commit that takes the log past this many pages copies it into the database. */
export const INLINE_CHECKPOINT_PAGES = 1_000;

/**
 * The threshold of connections whose log a thread copies (the thread starts the log over past
 * INLINE_CHECKPOINT_PAGES): it bounds the log should the thread not keep up, or a reader hold it back.
 */
export const BACKSTOP_CHECKPOINT_PAGES = 10_000;

/**
 * Past this many pages the thread restarts the log even when a reader held its passive copy back, holding this
 * process's writers back until the restart ends (RESTART_WAIT_MS for the reader, at most): otherwise a stream of
 * commits could outrun the copy to the backstop.
 */
const HOLD_WRITERS_PAGES = 4_000;

/** How often the thread copies what the log holds into the database while nothing is being written. */
export const CHECKPOINT_EVERY_MS = 100;

/**
 * How often while commits keep adding to the log: at reflection's pace (up to 60 pages a millisecond) the log
 * would grow past the backstop between two ticks 100 ms apart.
 */
export const BUSY_CHECKPOINT_EVERY_MS = 10;

/** How long the thread waits for the writer and readers to start the log over; past it, it tries at its next tick. */
const RESTART_WAIT_MS = 50;

/** How long a writer waits at the gate at most (a stalled disk); past it, it goes on and may meet the lock. */
const GATE_WAIT_MAX_MS = 1_000;

/** How long a store's close waits for a checkpoint in progress (a stalled disk) before leaving the thread to end by itself. */
const STOP_WAIT_MS = 5_000;

/**
 * The thread's body: plain CommonJS, so it runs alike from source, under the tests and from the bundle. Each
 * tick a passive checkpoint copies what no reader still needs without waiting for any lock. Under a steady
 * write load commits keep landing while it copies, so the log is never wholly copied and would not start over:
 * past INLINE_CHECKPOINT_PAGES a restart checkpoint copies the rest, so the next commit starts the log from its
 * beginning. It runs when the passive one copied all it found (had a reader held that back, the restart would
 * wait on it too), or past HOLD_WRITERS_PAGES. While it runs it raises the gate, which this process's writers
 * wait at before they begin: commits back to back would otherwise hold the write lock at nearly every moment the
 * restart tried for it (a write of another process that meets the lock runs again). Ticks come faster while
 * commits add to the log. It tells when it has opened the database; a failure is reported once (as text: the
 * driver's errors do not cross threads) until a different one, and tried again at the next tick.
 */
const CHECKPOINTER = `
const { parentPort, workerData } = require("node:worker_threads");
let reported = null;
const report = (error) => {
  const message = String((error && error.message) || error);
  if (message !== reported) parentPort.postMessage({ failed: message });
  reported = message;
};
function open() {
  try {
    const Database = require(workerData.driver);
    const db = new Database(workerData.file, { fileMustExist: true, timeout: workerData.restartWaitMs });
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
  parentPort.postMessage({ opened: true });
  const gate = new Int32Array(workerData.gate);
  const restart = () => {
    Atomics.store(gate, 0, 1);
    try {
      db.pragma("wal_checkpoint(RESTART)");
    } finally {
      Atomics.store(gate, 0, 0);
      Atomics.notify(gate, 0);
    }
  };
  let lastLog = 0;
  let timer;
  const tick = () => {
    let written = false;
    try {
      const [{ log, checkpointed }] = db.pragma("wal_checkpoint(PASSIVE)");
      if (log >= workerData.restartPages && (checkpointed === log || log >= workerData.holdPages)) restart();
      written = log !== lastLog;
      lastLog = log;
      reported = null;
    } catch (error) {
      report(error);
    }
    timer = setTimeout(tick, written ? workerData.busyEveryMs : workerData.everyMs);
  };
  timer = setTimeout(tick, workerData.everyMs);
  parentPort.once("message", () => {
    clearTimeout(timer);
    db.close();
    parentPort.close();
  });
}
`;

export interface CheckpointEvents {
  /** The thread has opened the database: from now on it copies the log. */
  onOpened(): void;
  /** A checkpoint failed (reported once until a different failure). */
  onError(error: Error): void;
  /** The thread ended without being stopped (it could not open the database): its log is no longer copied. */
  onEnded(): void;
}

export interface BackgroundCheckpoints {
  /** For this process's writers to pass before each transaction: it is raised while the thread restarts the log. */
  readonly gate: RestartGate;
  /** Stops the thread once its checkpoint in progress, if any, is done, waiting at most STOP_WAIT_MS. */
  stop(): Promise<void>;
}

/** Lets a writer wait, off the event loop, while a checkpoint thread restarts the log. */
export interface RestartGate {
  /** Resolves at once while no restart runs; otherwise once it has ended, or after GATE_WAIT_MAX_MS. */
  passed(): Promise<void>;
}

const OPEN = Promise.resolve();

/** A gate in memory shared with the thread, which raises it (1) and lowers it (0). */
function sharedGate() {
  const flag = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  const gate: RestartGate = {
    passed() {
      // Every write of the store passes here: the common case is one read of the flag.
      if (Atomics.load(flag, 0) === 0) return OPEN;
      const wait = Atomics.waitAsync(flag, 0, 1, GATE_WAIT_MAX_MS);
      return wait.async ? wait.value.then(() => undefined) : OPEN;
    },
  };
  /** For a thread that ended while it held the gate raised. */
  const lower = () => {
    Atomics.store(flag, 0, 0);
    Atomics.notify(flag, 0);
  };
  return { gate, buffer: flag.buffer, lower };
}

/**
 * Checkpoints the database's write-ahead log from a thread of its own. Left to SQLite, the commit that fills
 * the log copies it into the database and waits for the disk on the event loop (docs/performance.md, item 27).
 */
export function checkpointInBackground(file: string, events: CheckpointEvents, shared = sharedGate()): BackgroundCheckpoints {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(CHECKPOINTER, {
    eval: true,
    workerData: {
      file,
      driver,
      everyMs: CHECKPOINT_EVERY_MS,
      busyEveryMs: BUSY_CHECKPOINT_EVERY_MS,
      restartPages: INLINE_CHECKPOINT_PAGES,
      holdPages: HOLD_WRITERS_PAGES,
      restartWaitMs: RESTART_WAIT_MS,
      gate: shared.buffer,
    },
  });
  // The store's close stops it; until then it must not keep the process alive by itself.
  worker.unref();
  let stopping = false;
  const exited = new Promise<void>((resolve) =>
    worker.once("exit", () => {
      shared.lower();
      if (!stopping) events.onEnded();
      resolve();
    }),
  );
  worker.on("message", (message: { opened: true } | { failed: string }) => {
    if ("opened" in message) events.onOpened();
    else events.onError(new Error(`background checkpoint failed: ${message.failed}`));
  });
  worker.on("error", (error) => events.onError(error instanceof Error ? error : new Error(`background checkpoint failed: ${JSON.stringify(error)}`)));
  return {
    gate: shared.gate,
    async stop() {
      stopping = true;
      // Held by its exit from here: a process with nothing else to do would otherwise end before the thread does.
      worker.ref();
      worker.postMessage("stop");
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<"late">((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS, "late")));
      const outcome = await Promise.race([exited, late]);
      clearTimeout(timer);
      // Stuck in the driver (a stalled disk), the thread cannot be ended before its call returns: it is let go, and
      // ends then.
      if (outcome === "late") {
        worker.unref();
        void worker.terminate();
      }
    },
  };
}

/**
 * Who copies a SQLite store's write-ahead log into the database: SQLite, in the commit that fills it ("inline",
 * the CLI's short-lived stores); a thread of the store's own ("thread", the server process that runs the
 * background work); or another process's thread ("peer", the HTTP workers of `engram serve`). Past
 * BACKSTOP_CHECKPOINT_PAGES a commit copies it in the last two cases too.
 */
export type CheckpointMode = "inline" | "thread" | "peer";

/**
 * Sets the store's connections' own threshold (through `checkpointPast`) for `mode`, and starts the thread
 * when it is the store's.
 */
export async function arrangeCheckpoints(
  mode: CheckpointMode,
  file: string,
  checkpointPast: (pages: number) => Promise<void>,
  onError: (error: Error) => void,
): Promise<BackgroundCheckpoints | null> {
  if (mode === "inline") return null;
  await checkpointPast(BACKSTOP_CHECKPOINT_PAGES);
  if (mode === "peer") return null;
  return threadKeptRunning(file, checkpointPast, onError);
}

/**
 * The store's thread, started again should it end (after a pause that doubles while it cannot open the
 * database), so that the log is copied again for this store and for the other processes that count on it. While
 * there is none, this store's connections copy the log at SQLite's own threshold; the others' backstop bounds it.
 */
function threadKeptRunning(file: string, checkpointPast: (pages: number) => Promise<void>, onError: (error: Error) => void): BackgroundCheckpoints {
  let stopped = false;
  let failedStarts = 0;
  let restart: NodeJS.Timeout | undefined;
  // One gate for every thread in turn: the store's writers hold on to it.
  const shared = sharedGate();
  const events: CheckpointEvents = {
    onOpened() {
      failedStarts = 0;
      void checkpointPast(BACKSTOP_CHECKPOINT_PAGES).catch(onError);
    },
    onError,
    onEnded() {
      void checkpointPast(INLINE_CHECKPOINT_PAGES).catch(onError);
      if (stopped) return;
      restart = setTimeout(() => (thread = start()), restartPause(failedStarts++));
      restart.unref();
    },
  };
  const start = () => checkpointInBackground(file, events, shared);
  let thread = start();
  return {
    gate: shared.gate,
    async stop() {
      stopped = true;
      clearTimeout(restart);
      await thread.stop();
    },
  };
}
