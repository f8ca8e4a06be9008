import type { TEnvironment } from "@engram/contract";

/** One rate-limit counter: an organization's requests of one route group in one environment. */
export interface RateLimitKey {
  orgId: string;
  environment: TEnvironment;
  routeGroup: string;
}

export interface RateLimitRepository {
  /**
   * Adds `amount` to the counter of the window starting at `windowStart` (whole minutes since the epoch)
   * in one atomic statement, creating it at need, and answers the counter's new value.
   */
  add(key: RateLimitKey, windowStart: number, amount: number): Promise<number>;
  /** Deletes at most `limit` counters of windows that started before `windowStart`; answers how many. */
  deleteBefore(windowStart: number, limit: number): Promise<number>;
}
