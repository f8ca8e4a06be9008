import { createHash } from "node:crypto";
import type { Clock } from "../kernel/clock";
import { AppError } from "../kernel/errors";
import { deleteInStatements } from "../kernel/in-turns";
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
    /**
     * Counts a sign-in as failed before its password is checked, so concurrent guesses cannot all pass a check
     * made before any of them failed; throws 429 past either limit. Answers `succeeded`, which takes the
     * attempt back off the counts: only failures count.
     */
    async attempt(email: string, address: string): Promise<{ succeeded(): Promise<void> }> {
      const { start, resetSeconds } = window();
      const keys = keysOf(email, address);
      const [account = 0, fromAddress = 0] = await repository.recordFailure(keys, start);
      const forgive = () => repository.forgive(keys, start);
      if (account > policy.perAccount || fromAddress > policy.perAddress) {
        // A refused attempt checks no password: it is no failure, so a client hammering one locked account
        // does not lock everyone else behind its (office) address.
        await forgive();
        throw new AppError("login_throttled", `Too many failed sign-ins; try again in ${resetSeconds} s.`, null, resetSeconds);
      }
      return { succeeded: forgive };
    },
    /** Counts of past windows no longer matter. */
    sweep() {
      const { start } = window();
      return deleteInStatements((limit) => repository.deleteBefore(start, limit));
    },
  };
}

export type LoginThrottle = ReturnType<typeof loginThrottle>;
