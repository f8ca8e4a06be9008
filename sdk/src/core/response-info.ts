/** The state of a rate-limited route's window, from the `RateLimit-*` headers. */
export interface RateLimitInfo {
  /** Requests allowed in the window. */
  limit: number;
  /** Requests left in the window. */
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
}

/** What a successful answer said besides its body: see `withResponse()`. */
export interface ResponseInfo {
  status: number;
  headers: Headers;
  /** The server's request id (`x-request-id`), for support and logs. */
  requestId: string | null;
  /** The rate-limit window, when the route reports one; null otherwise. */
  rateLimit: RateLimitInfo | null;
}

export function responseInfo(status: number, headers: Headers): ResponseInfo {
  return { status, headers, requestId: headers.get("x-request-id"), rateLimit: rateLimitOf(headers) };
}

/** Reads `RateLimit-*`, falling back to the legacy `X-RateLimit-*` twins; the standard names win when both exist. */
export function rateLimitOf(headers: Headers): RateLimitInfo | null {
  const read = (name: string) => numberOrNull(headers.get(`ratelimit-${name}`)) ?? numberOrNull(headers.get(`x-ratelimit-${name}`));
  const limit = read("limit");
  const remaining = read("remaining");
  const reset = read("reset");
  return limit === null || remaining === null || reset === null ? null : { limit, remaining, reset };
}

function numberOrNull(value: string | null): number | null {
  if (value === null || value.trim() === "") return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}
