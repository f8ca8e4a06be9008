/**
 * The time a piece of work has spent waiting off the event loop (for the database, for another thread), so that
 * pacing counts only the time it held the loop. Waits that overlap count once.
 */
export interface WaitMeter {
  /** Milliseconds waited so far. */
  readonly waited: number;
  /** Answers what `waiting` answers, counting the time until it settles as waited. */
  time<T>(waiting: Promise<T>): Promise<T>;
}

export function waitMeter(now: () => number = () => performance.now()): WaitMeter {
  let waited = 0;
  let pending = 0;
  let since = 0;
  return {
    get waited() {
      return pending > 0 ? waited + (now() - since) : waited;
    },
    async time(waiting) {
      if (pending++ === 0) since = now();
      try {
        return await waiting;
      } finally {
        if (--pending === 0) waited += now() - since;
      }
    },
  };
}

/** Answers what it is given, timed on `waits` when there is a meter. */
export type Timed = <T>(waiting: Promise<T>) => Promise<T>;

export const timedOn = (waits: WaitMeter | undefined): Timed => (waits ? (waiting) => waits.time(waiting) : (waiting) => waiting);
