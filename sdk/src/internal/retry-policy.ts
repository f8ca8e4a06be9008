/**
 * When to try a request again, and how long to wait first. Pure functions, so the policy reads in one place.
 */

/** Exponential backoff: 0.5 s, 1 s, 2 s… capped at 8 s, each shortened by up to a quarter at random. */
export const backoff = { initialDelayMs: 500, maxDelayMs: 8_000, jitter: 0.25 } as const;

/**
 * The longest server-requested wait the SDK sits through. A longer Retry-After is not retried: the caller gets
 * the RateLimitError (with `retryAfter`) rather than a call that hangs for minutes.
 */
export const maxHonouredRetryAfterMs = 60_000;

/**
 * Whether an error answer may succeed if sent again: timeouts (408), conflicts other than a reused idempotency
 * key (409), rate limits (429) and server errors (5xx). Never 400, 401, 403, 404 or other client errors.
 */
export function isRetryableStatus(status: number, code: string | null): boolean {
  if (status === 409) return code !== "idempotency_key_reused";
  return status === 408 || status === 429 || status >= 500;
}

/** The wait the server asked for: `retry-after-ms` (milliseconds), else `Retry-After` (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | null {
  const ms = parseNonNegative(headers.get("retry-after-ms"));
  if (ms !== null) return ms;
  const value = headers.get("retry-after");
  if (value === null) return null;
  const seconds = parseNonNegative(value);
  if (seconds !== null) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** The backoff before retry number `retry` (0 for the first retry) when the server named no wait. */
export function backoffDelayMs(retry: number, random: () => number = Math.random): number {
  const full = Math.min(backoff.initialDelayMs * 2 ** retry, backoff.maxDelayMs);
  return full * (1 - backoff.jitter * random());
}

/**
 * How long to wait before retry number `retry`: exactly what the server asked for when it asked (never less),
 * else backoff; null when the server asked for longer than the SDK is willing to wait.
 */
export function retryDelayMs(retry: number, headers: Headers | undefined): number | null {
  const requested = headers ? retryAfterMs(headers) : null;
  if (requested === null) return backoffDelayMs(retry);
  return requested <= maxHonouredRetryAfterMs ? requested : null;
}

function parseNonNegative(value: string | null): number | null {
  if (value === null || value.trim() === "") return null;
  const number = Number(value);
  return Number.isFinite(number) && number >= 0 ? number : null;
}
