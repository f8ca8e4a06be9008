import { describe, expect, it } from "vitest";
import { useServerBehindProxy } from "@engram/test-support";
import { Engram, RateLimitError } from "../src";

// The real server's own limiter (one memory request per minute), on a clock the test can set to shortly before
// a minute ends, so that its Retry-After is short and the retry lands in the next window.
let clock = () => Date.now();
const setup = useServerBehindProxy({ rateLimits: [{ plan: "*", group: "memory", environment: null, limit: 1 }], now: () => new Date(clock()) });

/** Sets the server's clock to `ms` into the current minute, running on from there or standing still. */
function serverClockAt(ms: number, options: { frozen?: boolean } = {}) {
  const offsetMs = (ms - (Date.now() % 60_000) + 60_000) % 60_000;
  const at = Date.now() + offsetMs;
  clock = options.frozen ? () => at : () => Date.now() + offsetMs;
}

describe("the real server's rate limits", () => {
  it("exposes the window on every answer, and retries a 429 after exactly its Retry-After with the same key", async () => {
    const { orgId, token } = await setup.server.newTenant();
    const engram = new Engram({ baseUrl: setup.proxy.url, token });
    // Two seconds left: room for both requests to land in this window on a busy machine.
    serverClockAt(58_000);

    const first = await engram.memory.remember({ text: "Rate limits reset each minute." }).withResponse();
    expect(first.response.rateLimit).toMatchObject({ limit: 1, remaining: 0 });
    expect(first.response.rateLimit!.reset).toBeLessThanOrEqual(2);
    const second = await engram.memory.remember({ text: "A 429 is retried after Retry-After." }).withResponse();

    expect(setup.proxy.requests.map((r) => r.upstreamStatus)).toEqual([201, 429, 201]);
    const [, limited, retried] = setup.proxy.requests;
    const retryAfterSeconds = Number(limited!.upstreamHeaders!["retry-after"]);
    expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(retried!.receivedAt - limited!.answeredAt!).toBeGreaterThanOrEqual(retryAfterSeconds * 1000);
    expect(retried!.headers["idempotency-key"]).toBe(limited!.headers["idempotency-key"]);
    expect(second.response.rateLimit).toMatchObject({ limit: 1, remaining: 0 });
    expect(second.response.rateLimit!.reset).toBeGreaterThan(50); // a new window
    expect(await setup.server.db.memory.count({ where: { orgId } })).toBe(2);
  });

  it("throws RateLimitError with the real Retry-After when retries are off", async () => {
    const { token } = await setup.server.newTenant();
    const engram = new Engram({ baseUrl: setup.server.url, token, maxRetries: 0 });
    serverClockAt(30_000, { frozen: true });
    await engram.memory.recall({ query: "anything" });
    const error = await engram.memory.recall({ query: "anything" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, type: "rate_limit_error", code: "rate_limit_exceeded" });
    expect((error as RateLimitError).retryAfter).toBe(30);
    expect((error as RateLimitError).headers.get("ratelimit-remaining")).toBe("0");
  });
});
