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
