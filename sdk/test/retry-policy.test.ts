import { describe, expect, it } from "vitest";
import { backoffDelayMs, isRetryableStatus, maxHonouredRetryAfterMs, retryAfterMs, retryDelayMs } from "../src/internal/retry-policy";

describe("retry policy", () => {
  it("retries 408, 409 other than a reused key, 429 and 5xx; nothing else", () => {
    const retried = [400, 401, 403, 404, 408, 409, 413, 415, 422, 429, 500, 502, 503, 504].filter((status) => isRetryableStatus(status, null));
    expect(retried).toEqual([408, 409, 429, 500, 502, 503, 504]);
    expect(isRetryableStatus(409, "invalid_state_transition")).toBe(true);
    expect(isRetryableStatus(409, "idempotency_key_reused")).toBe(false);
  });

  it("reads retry-after-ms before Retry-After, in seconds or as an HTTP date", () => {
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250.5", "retry-after": "3" }))).toBe(250.5);
    expect(retryAfterMs(new Headers({ "retry-after": "3" }))).toBe(3000);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now)).toBe(5000);
    expect(retryAfterMs(new Headers({ "retry-after": "Wed, 31 Dec 2025 23:59:00 GMT" }), now)).toBe(0);
    expect(retryAfterMs(new Headers({ "retry-after": "soon", "retry-after-ms": "-5" }))).toBeNull();
    expect(retryAfterMs(new Headers())).toBeNull();
  });

  it("backs off 0.5 s x 2^n up to 8 s, less at most a quarter of jitter", () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffDelayMs(n, () => 0))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect([0, 1, 4].map((n) => backoffDelayMs(n, () => 1))).toEqual([375, 750, 6000]);
    for (let i = 0; i < 100; i++) {
      const delay = backoffDelayMs(2);
      expect(delay).toBeGreaterThanOrEqual(1500);
      expect(delay).toBeLessThanOrEqual(2000);
    }
  });

  it("waits exactly what the server asked, and not at all when it asked for too long", () => {
    expect(retryDelayMs(3, new Headers({ "retry-after": "2" }))).toBe(2000);
    expect(retryDelayMs(0, new Headers({ "retry-after": String(maxHonouredRetryAfterMs / 1000 + 1) }))).toBeNull();
    expect(retryDelayMs(0, undefined)).toBeGreaterThanOrEqual(375);
  });
});
