import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Clock } from "../kernel/clock";
import { AppError } from "../kernel/errors";
import { deleteInStatements } from "../kernel/in-turns";
import type { LoginThrottleRepository, ThrottleClaim } from "./ports";

export interface LoginThrottlePolicy {
  windowSeconds: number;
  /** Failed sign-ins allowed per account (known or not) per window; at least 1. */
  perAccount: number;
  /** Failed sign-ins allowed per client address per window: higher, as offices share addresses; at least 1. */
  perAddress: number;
  /** How long an attempt waits for other checks in flight to end before it is refused. */
  maxWaitMs: number;
}

export const DEFAULT_LOGIN_THROTTLE: LoginThrottlePolicy = { windowSeconds: 15 * 60, perAccount: 10, perAddress: 100, maxWaitMs: 5_000 };
/**
 * Its pauses between looks: doubling from the first to the longest, each shortened by up to half at random, so a
 * crowd of waiters costs the database a few dozen claims each rather than one every few milliseconds.
 */
const FIRST_PAUSE_MS = 10;
const LONGEST_PAUSE_MS = 250;

/**
 * Failed sign-ins are counted per account and per address in fixed windows shared through the database.
 * Unknown emails count like known ones, so throttling reveals nothing about which accounts exist.
 *
 * A password is checked only under a claim on both windows, taken while their failures and the checks in
 * flight are fewer than the limit: every check in flight could fail, so concurrent guesses can never pass the
 * limit, and an attempt that finds the room taken by checks in flight waits for them rather than being refused.
 * Only a locked window (failures at the limit) refuses at once.
 */
export function loginThrottle(repository: LoginThrottleRepository, policy: LoginThrottlePolicy, clock: Clock) {
  const window = () => {
    const now = clock().getTime() / 1000;
    const start = Math.floor(now / policy.windowSeconds) * policy.windowSeconds;
    return { start, resetSeconds: Math.max(1, Math.ceil(start + policy.windowSeconds - now)) };
  };
  const keysOf = (email: string, address: string) => [`account:${createHash("sha256").update(email).digest("hex")}`, `address:${address}`];
  const limits = [policy.perAccount, policy.perAddress];

  /**
   * Claims every key's window in turn, or none: "locked" or "busy" when one has no room. Claims taken before one
   * that is refused, or that fails, are given back, so no check is left in flight that will never end.
   */
  async function claimAll(keys: string[], start: number): Promise<"claimed" | "locked" | "busy"> {
    for (const [i, key] of keys.entries()) {
      let claim: ThrottleClaim;
      try {
        claim = await repository.claim(key, start, limits[i]!);
      } catch (error) {
        if (i > 0) await repository.settle(keys.slice(0, i), start, false);
        throw error;
      }
      if (claim.claimed) continue;
      if (i > 0) await repository.settle(keys.slice(0, i), start, false);
      return claim.failures >= limits[i]! ? "locked" : "busy";
    }
    return "claimed";
  }

  return {
    /**
     * Runs `check` (a password check: its result, or null when the password was wrong) as one throttled attempt,
     * and counts a null as a failure. Throws 429 past either limit; a refused attempt checks no password and is
     * no failure, so a client hammering one locked account does not lock everyone else behind its address.
     */
    async guard<T>(email: string, address: string, check: () => Promise<T | null>): Promise<T | null> {
      const keys = keysOf(email, address);
      const waitUntil = performance.now() + policy.maxWaitMs;
      for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(2 * pause, LONGEST_PAUSE_MS)) {
        const { start, resetSeconds } = window();
        const claim = await claimAll(keys, start);
        if (claim === "locked") throw new AppError("login_throttled", `Too many failed sign-ins; try again in ${resetSeconds} s.`, null, resetSeconds);
        if (claim === "claimed") {
          // A check that throws (the database, say) checked no password: it is no failure.
          let failed = false;
          try {
            const result = await check();
            failed = result === null;
            return result;
          } finally {
            await repository.settle(keys, start, failed);
          }
        }
        if (performance.now() >= waitUntil) throw new AppError("login_throttled", "Too many sign-ins at once; try again in 1 s.", null, 1);
        await sleep(pause * (1 - Math.random() / 2));
      }
    },
    /** Counts of past windows no longer matter. */
    sweep() {
      const { start } = window();
      return deleteInStatements((limit) => repository.deleteBefore(start, limit));
    },
  };
}

export type LoginThrottle = ReturnType<typeof loginThrottle>;
