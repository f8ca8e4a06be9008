import { createHash } from "node:crypto";
import type { Clock } from "../kernel/clock";
import { AppError } from "../kernel/errors";
import type { LoginThrottleRepository } from "./ports";

export interface LoginThrottlePolicy {
  windowSeconds: number;
  /** Failed sign-ins allowed per account (known or not) per window. */
  perAccount: number;
  /** Failed sign-ins allowed per client address per window: higher, as offices share addresses. */
  perAddress: number;
}

export const DEFAULT_LOGIN_THROTTLE: LoginThrottlePolicy = { windowSeconds: 15 * 60, perAccount: 10, perAddress: 100 };

/**
 * Failed sign-ins are counted per account and per address in fixed windows shared through the database.
 * Unknown emails count like known ones, so throttling reveals nothing about which accounts exist.
 */
export function loginThrottle(repository: LoginThrottleRepository, policy: LoginThrottlePolicy, clock: Clock) {
  const window = () => {
    const now = clock().getTime() / 1000;
    const start = Math.floor(now / policy.windowSeconds) * policy.windowSeconds;
    return { start, resetSeconds: Math.max(1, Math.ceil(start + policy.windowSeconds - now)) };
  };
  const keysOf = (email: string, address: string) => [`account:${createHash("sha256").update(email).digest("hex")}`, `address:${address}`];

  return {
    /** Throws 429 when either count has reached its limit in this window. */
    async check(email: string, address: string): Promise<void> {
      const { start, resetSeconds } = window();
      const [account = 0, fromAddress = 0] = await repository.failures(keysOf(email, address), start);
      if (account >= policy.perAccount || fromAddress >= policy.perAddress) {
        throw new AppError("login_throttled", `Too many failed sign-ins; try again in ${resetSeconds} s.`, null, resetSeconds);
      }
    },
    async recordFailure(email: string, address: string): Promise<void> {
      await repository.recordFailure(keysOf(email, address), window().start);
    },
    /** Counts of past windows no longer matter. */
    sweep: () => repository.deleteBefore(window().start),
  };
}

export type LoginThrottle = ReturnType<typeof loginThrottle>;
