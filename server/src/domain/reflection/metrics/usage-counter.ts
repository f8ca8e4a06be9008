import type { TEnvironment } from "@engram/contract";
import type { Clock } from "../../kernel/clock";
import type { DailyUsageRepository, UsageIncrement } from "./ports";

export const USAGE_FLUSH_MS = 5_000;

export interface UsageCounterOptions {
  clock: Clock;
  /** How often the counts gathered in memory are written. */
  flushMs?: number;
  /** Told when a flush fails; its counts are kept for the next one. */
  onError?: (error: unknown) => void;
}

/**
 * Counts retrievals per organization, environment and UTC day in memory and adds them to the daily counters
 * with one upsert every few seconds, so a retrieval never waits for a write of its own. A process that stops
 * without `stop()` loses at most the last few seconds of counts.
 */
export function usageCounter(usage: DailyUsageRepository, { clock, flushMs = USAGE_FLUSH_MS, onError }: UsageCounterOptions) {
  let pending = new Map<string, UsageIncrement>();
  let writes: Promise<void> = Promise.resolve();

  function add(increment: UsageIncrement): void {
    const key = `${increment.orgId}\u0000${increment.environment}\u0000${increment.day}\u0000${increment.metric}`;
    const counted = pending.get(key);
    if (counted) counted.count += increment.count;
    else pending.set(key, { ...increment });
  }

  async function write(): Promise<void> {
    if (pending.size === 0) return;
    const taken = [...pending.values()];
    pending = new Map();
    try {
      await usage.add(taken);
    } catch (error) {
      for (const increment of taken) add(increment);
      onError?.(error);
    }
  }

  /** Writes what was counted so far, after any write already under way. */
  function flush(): Promise<void> {
    writes = writes.then(write);
    return writes;
  }

  const timer = setInterval(() => void flush(), flushMs);
  timer.unref();

  return {
    retrieved(scope: { orgId: string; environment: TEnvironment }): void {
      add({ orgId: scope.orgId, environment: scope.environment, day: clock().toISOString().slice(0, 10), metric: "retrievals", count: 1 });
    },
    flush,
    /** Stops the timer and writes what is left; call before the store closes. */
    async stop(): Promise<void> {
      clearInterval(timer);
      await flush();
    },
  };
}

export type UsageCounter = ReturnType<typeof usageCounter>;
