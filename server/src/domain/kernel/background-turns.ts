import { setTimeout as sleep } from "node:timers/promises";
import { nextTurn } from "./in-turns";
import type { WaitMeter } from "./wait-meter";

/** A turn that took longer than this ran someone else's work: the loop is busy. */
const BUSY_TURN_MS = 1;
/** The longest a pause waits, however long the step before it: the work never stalls for long. */
const MAX_WAIT_MS = 250;

export interface TurnTiming {
  now(): number;
  turn(): Promise<void>;
  wait(ms: number): Promise<void>;
}

const realTiming: TurnTiming = { now: () => performance.now(), turn: nextTurn, wait: (ms) => sleep(ms) };

/**
 * Pauses for background work that keep its share of a busy event loop at most `share`. Each pause gives the loop
 * a turn; when others used that turn (requests were waiting), it also waits until the work's last step is at most
 * `share` of the time since the pause before. On an idle loop the work goes on at once. A step's work is the time
 * it held the loop: what it spent waiting on `waits` (the database's round trips), others could use, and did.
 */
export function backgroundPauses(share: number, { waits, timing = realTiming }: { waits?: WaitMeter; timing?: TurnTiming } = {}): () => Promise<void> {
  const waited = () => waits?.waited ?? 0;
  let resumedAt = timing.now();
  let waitedAtResume = waited();
  return async () => {
    const pausedAt = timing.now();
    const worked = Math.max(0, pausedAt - resumedAt - (waited() - waitedAtResume));
    await timing.turn();
    const othersRan = timing.now() - pausedAt;
    if (othersRan > BUSY_TURN_MS) {
      const owed = (worked * (1 - share)) / share - othersRan;
      if (owed > 0) await timing.wait(Math.min(owed, MAX_WAIT_MS));
    }
    resumedAt = timing.now();
    waitedAtResume = waited();
  };
}
