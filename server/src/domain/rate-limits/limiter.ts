import type { TEnvironment } from "@engram/contract";
import type { Plan } from "../access/records";
import type { Clock } from "../kernel/clock";
import { deleteInStatements } from "../kernel/in-turns";
import { scopeKey } from "../kernel/scope-key";
import { RATE_LIMIT_WINDOW_SECONDS, type RateLimitPolicy, type RouteGroup } from "./policy";
import type { RateLimitKey, RateLimitRepository } from "./ports";

/** What one request learns from the limiter; it becomes the RateLimit-* headers (and a 429 when not allowed). */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets, at least 1. */
  resetSeconds: number;
}

export interface RateLimitSubject {
  orgId: string;
  environment: TEnvironment;
  plan: Plan;
}

/** A process claims at most this share of what is left of a window at once, so it never hoards the rest. */
const CLAIM_SHARE = 1 / 8;
/** The largest claim: one shared write per this many requests at most. */
const MAX_CLAIM = 100;

const WINDOW_MS = RATE_LIMIT_WINDOW_SECONDS * 1000;

/** The number of the fixed window that `nowMs` falls in. */
function windowOf(nowMs: number): number {
  return Math.floor(nowMs / WINDOW_MS);
}

/** How many requests to claim when the shared counter stood at `total`: an eighth of what is left, 1 to 100. */
function claimSize(limit: number, total: number): number {
  return Math.max(1, Math.min(MAX_CLAIM, Math.floor((limit - total) * CLAIM_SHARE)));
}

/** This process's view of one counter in the current window. */
interface Counter {
  windowStart: number;
  /** Requests this process has claimed from the shared counter and not yet admitted. */
  available: number;
  /** The shared counter as of this process's last claim: every process's admissions and claims. */
  total: number;
  lastClaim: number;
  /** The claim in flight, resolving to false when the database did not answer. */
  claiming: Promise<boolean> | null;
}

/**
 * Fixed-window rate limiting with counters shared through the database: each process claims blocks of
 * requests from the shared counter and admits from its block in memory (see docs/rate-limits.md).
 */
export class RateLimiter {
  readonly #counters = new Map<string, Counter>();
  #currentWindow = -1;

  constructor(
    private readonly repository: RateLimitRepository,
    private readonly policy: RateLimitPolicy,
    private readonly options: { clock: Clock; onError?: (error: unknown) => void },
  ) {}

  /** Deletes the shared counters of windows before the last: a counter matters for its own window only. */
  sweep(): Promise<number> {
    const current = windowOf(this.options.clock().getTime());
    return deleteInStatements((limit) => this.repository.deleteBefore(current - 1, limit));
  }

  /** Admits or refuses one request of `group` by `subject`; null when the group has no limit. */
  async take(subject: RateLimitSubject, group: RouteGroup): Promise<RateLimitDecision | null> {
    const limit = this.policy.limitFor(subject.plan, subject.environment, group);
    if (limit === null) return null;
    const nowMs = this.options.clock().getTime();
    const windowStart = windowOf(nowMs);
    const resetSeconds = Math.max(1, Math.ceil(((windowStart + 1) * WINDOW_MS - nowMs) / 1000));
    const key: RateLimitKey = { orgId: subject.orgId, environment: subject.environment, routeGroup: group };
    const counter = this.#counterFor(scopeKey(key, group), windowStart);

    for (;;) {
      if (counter.available > 0) {
        counter.available--;
        // Claim the next block in the background once half of this one is used, so no request waits for it;
        // but not single requests near the limit, which a process might then hold unused.
        if (!counter.claiming && counter.available <= Math.floor(counter.lastClaim / 2) && claimSize(limit, counter.total) > 1) {
          this.#startClaim(key, counter, limit);
        }
        // Everything claimed so far, less what this process still holds, has been (or is being) admitted.
        const remaining = Math.max(0, limit - (counter.total - counter.available));
        return { allowed: true, limit, remaining, resetSeconds };
      }
      if (counter.total >= limit) return { allowed: false, limit, remaining: 0, resetSeconds };
      const claimed = await (counter.claiming ?? this.#startClaim(key, counter, limit));
      // The database did not answer: admit rather than refuse everyone (the failure is reported).
      if (!claimed) return { allowed: true, limit, remaining: Math.max(0, limit - counter.total), resetSeconds };
    }
  }

  #counterFor(id: string, windowStart: number): Counter {
    if (windowStart !== this.#currentWindow) {
      // A new window: forget counters of earlier ones (their unused claims lapse with them).
      this.#currentWindow = windowStart;
      for (const [key, counter] of this.#counters) if (counter.windowStart < windowStart) this.#counters.delete(key);
    }
    let counter = this.#counters.get(id);
    if (!counter || counter.windowStart !== windowStart) {
      counter = { windowStart, available: 0, total: 0, lastClaim: 0, claiming: null };
      this.#counters.set(id, counter);
    }
    return counter;
  }

  /** One claim at a time per counter; everyone who needs it waits for the same one. */
  #startClaim(key: RateLimitKey, counter: Counter, limit: number): Promise<boolean> {
    const claiming: Promise<boolean> = this.#claim(key, counter, limit).finally(() => {
      if (counter.claiming === claiming) counter.claiming = null;
    });
    counter.claiming = claiming;
    return claiming;
  }

  async #claim(key: RateLimitKey, counter: Counter, limit: number): Promise<boolean> {
    const amount = claimSize(limit, counter.total);
    try {
      const total = await this.repository.add(key, counter.windowStart, amount);
      // The block was added on top of `total - amount`; only the part within the limit can be admitted.
      const granted = Math.max(0, Math.min(amount, limit - (total - amount)));
      counter.total = Math.max(counter.total, total);
      counter.available += granted;
      counter.lastClaim = amount;
      return true;
    } catch (error) {
      this.options.onError?.(error);
      return false;
    }
  }
}
