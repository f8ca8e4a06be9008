import type { RequestHandler, Response } from "express";
import { AppError } from "../domain/kernel/errors";
import type { RateLimitDecision, RateLimiter, RateLimitSubject } from "../domain/rate-limits/limiter";
import type { RouteGroup } from "../domain/rate-limits/policy";
import { callerOf } from "./auth";

function setRateLimitHeaders(res: Response, { limit, remaining, resetSeconds }: RateLimitDecision): void {
  // The standard names and their legacy twins, on every limited response.
  for (const prefix of ["RateLimit", "X-RateLimit"]) {
    res.setHeader(`${prefix}-Limit`, String(limit));
    res.setHeader(`${prefix}-Remaining`, String(remaining));
    res.setHeader(`${prefix}-Reset`, String(resetSeconds));
  }
}

/**
 * Counts the request against its organization's limit for `group` (after authentication, before the body
 * is read) and sets the RateLimit headers, so they are in place before any handler writes, streaming ones
 * included. Over the limit: 429 with Retry-After. It runs as part of each route, so the group is the matched
 * route's own and no spelling of a path can reach a handler uncounted.
 */
export function rateLimit(limiter: RateLimiter, group: RouteGroup, subjectOf: (res: Response) => RateLimitSubject | null = callerOf): RequestHandler {
  return (_req, res, next) => {
    const subject = subjectOf(res);
    if (!subject) return next();
    limiter
      .take(subject, group)
      .then((decision) => {
        if (decision === null) return next();
        setRateLimitHeaders(res, decision);
        if (decision.allowed) return next();
        next(rateLimitExceeded(decision, group));
      })
      .catch(next);
  };
}

/** The documented 429 for a request over its group's limit (HTTP routes and MCP tool calls alike). */
export function rateLimitExceeded(decision: RateLimitDecision, group: RouteGroup): AppError {
  return new AppError("rate_limit_exceeded", `Rate limit of ${decision.limit} ${group} requests per minute exceeded; retry after ${decision.resetSeconds} s.`, null, decision.resetSeconds);
}
