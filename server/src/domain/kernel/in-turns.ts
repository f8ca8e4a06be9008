import { setImmediate } from "node:timers/promises";

/** Lets the event loop run what is waiting (I/O, timers, other requests) before going on. */
export const nextTurn = (): Promise<void> => setImmediate();

/**
 * Runs work written as a generator that yields between its steps, giving the event loop a turn whenever
 * the work has held it for `sliceMs`, so that other requests are served while it runs. Answers what the
 * generator returns.
 */
export async function inTurns<T>(work: Generator<void, T, void>, sliceMs: number): Promise<T> {
  let sliceEnd = performance.now() + sliceMs;
  for (let step = work.next(); ; step = work.next()) {
    if (step.done) return step.value;
    if (performance.now() >= sliceEnd) {
      await nextTurn();
      sliceEnd = performance.now() + sliceMs;
    }
  }
}

/** Rows one statement of a sweep deletes at most. */
export const ROWS_PER_SWEEP_STATEMENT = 500;

/**
 * Deletes what `deleteSome` finds, at most ROWS_PER_SWEEP_STATEMENT rows a call, until a call finds fewer, with a
 * turn of the event loop between calls: rows that piled up (a day of keyed writes, an hour of rate-limit
 * windows) are swept without holding the loop for more than one statement, which SQLite runs in this process.
 * Answers how many were deleted.
 */
export async function deleteInStatements(deleteSome: (limit: number) => Promise<number>): Promise<number> {
  let deleted = 0;
  for (;;) {
    const count = await deleteSome(ROWS_PER_SWEEP_STATEMENT);
    deleted += count;
    if (count < ROWS_PER_SWEEP_STATEMENT) return deleted;
    await nextTurn();
  }
}
