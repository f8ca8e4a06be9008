import type { RequestHandler, Response } from "express";
import { AppError } from "../domain/errors";
import type { RateLimitDecision, RateLimiter } from "../domain/rate-limits/limiter";
import type { RouteGroup } from "../domain/rate-limits/policy";
import { callerOf } from "./auth";

/** The route group of a path under `/v1`; null for paths no route serves (they answer 404 unlimited). */
export function routeGroupOf(path: string): RouteGroup | null {
  if (path === "/memory/events") return "events";
  if (path === "/memory" || path.startsWith("/memory/")) return "memory";
  if (path === "/chat/completions" || path === "/models" || /^\/agents\/[^/]+\/chat\/completions$/.test(path)) return "inference";
  return null;
}

function setRateLimitHeaders(res: Response, { limit, remaining, resetSeconds }: RateLimitDecision): void {
  // The standard names (spec 8.1) and their legacy twins, on every limited response.
  for (const prefix of ["RateLimit", "X-RateLimit"]) {
    res.setHeader(`${prefix}-Limit`, String(limit));
    res.setHeader(`${prefix}-Remaining`, String(remaining));
    res.setHeader(`${prefix}-Reset`, String(resetSeconds));
  }
}

/**
 * Counts the request against its organization's limit for the route group (after authentication, before
 * the body is read) and sets the RateLimit headers, so they are in place before any handler writes,
 * streaming ones included. Over the limit: 429 with Retry-After.
 */
export function rateLimit(limiter: RateLimiter): RequestHandler {
  return (req, res, next) => {
    const group = routeGroupOf(req.path);
    if (group === null) return next();
    limiter
      .take(callerOf(res), group)
      .then((decision) => {
        if (decision === null) return next();
        setRateLimitHeaders(res, decision);
        if (decision.allowed) return next();
        next(
          new AppError(
            "rate_limit_exceeded",
            `Rate limit of ${decision.limit} ${group} requests per minute exceeded; retry after ${decision.resetSeconds} s.`,
            null,
            decision.resetSeconds,
          ),
        );
      })
      .catch(next);
  };
}
