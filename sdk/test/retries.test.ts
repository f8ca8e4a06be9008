import { describe, expect, it } from "vitest";
import { errorBody, useServerBehindProxy } from "@engram/test-support";
import { APIUserAbortError, AuthenticationError, ConflictError, Engram, InternalServerError, InvalidRequestError, NotFoundError, PermissionDeniedError, RateLimitError } from "../src";

const setup = useServerBehindProxy({ proxyPerTest: true });

const rateLimited = (headers: Record<string, string>) => ({ status: 429, headers, body: errorBody("rate_limit_error", "rate_limit_exceeded", "Too many requests", { retry_after: 1 }) });
const unavailable = { status: 503, body: errorBody("server_error", "service_unavailable", "Try again shortly") };

/** Milliseconds between the proxy finishing answer `i` and receiving the next request. */
const waitAfter = (i: number) => setup.proxy.requests[i + 1]!.receivedAt - setup.proxy.requests[i]!.answeredAt!;

async function tenantThroughProxy(options: { maxRetries?: number } = {}) {
  const { orgId, token } = await setup.server.newTenant();
  return { orgId, engram: new Engram({ baseUrl: setup.proxy.url, token, ...options }) };
}

describe("retries through a real proxy in front of the real server", () => {
  it("waits at least Retry-After on a 429, backs off on a lost 503, reuses one Idempotency-Key and stores one memory", async () => {
    const { orgId, engram } = await tenantThroughProxy();
    // The 503 comes after the server has written the memory: only the reused key keeps it from being written twice.
    setup.proxy.script(rateLimited({ "retry-after": "1" }), { ...unavailable, afterForwarding: true });

    const started = performance.now();
    const { data, response } = await engram.memory.encode({ text: "Deploy freezes start Friday 16:00." }).withResponse();
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);

    expect(setup.proxy.requests).toHaveLength(3);
    expect(waitAfter(0)).toBeGreaterThanOrEqual(1000);
    expect(waitAfter(1)).toBeGreaterThanOrEqual(500 * 2 * 0.75); // second retry's backoff: 1 s less at most 25 %
    const keys = setup.proxy.requests.map((r) => r.headers["idempotency-key"]);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
    expect(setup.proxy.forwarded).toBe(2);
    expect(response.headers.get("idempotent-replayed")).toBe("true");
    expect(await setup.server.db.memory.count({ where: { orgId } })).toBe(1);
    expect((await engram.memory.provenance(data.id)).source.idempotencyKey).toBe(keys[0]);
  });

  it("retries a connection reset after the server wrote the memory, and stores it once", async () => {
    const { orgId, engram } = await tenantThroughProxy();
    setup.proxy.script({ reset: true, afterForwarding: true });
    await engram.memory.remember({ text: "The VPN certificate renews in March." }, { idempotencyKey: "vpn-renewal" });
    expect(setup.proxy.requests.map((r) => r.headers["idempotency-key"])).toEqual(["vpn-renewal", "vpn-renewal"]);
    expect(await setup.server.db.memory.count({ where: { orgId } })).toBe(1);
  });

  it("retries an event sent without a key, and ingests it once: the server derives the same key", async () => {
    const { orgId, engram } = await tenantThroughProxy();
    setup.proxy.script({ ...unavailable, afterForwarding: true });
    const result = await engram.events.send({ type: "deploy.completed", text: "payments-api 1.4.0 deployed to production", source: "argo", subject: "payments-api" });
    expect(result).toMatchObject({ replayed: true, keySource: "derived" });
    expect(setup.proxy.requests.map((r) => r.headers["idempotency-key"])).toEqual([undefined, undefined]);
    expect(await setup.server.db.businessEvent.count({ where: { orgId } })).toBe(1);
  });

  it("waits retry-after-ms when given, to the millisecond", async () => {
    const { engram } = await tenantThroughProxy();
    setup.proxy.script(rateLimited({ "retry-after-ms": "1200", "retry-after": "5" }));
    await engram.memory.recall({ query: "anything" });
    expect(setup.proxy.requests).toHaveLength(2);
    expect(waitAfter(0)).toBeGreaterThanOrEqual(1200);
    expect(waitAfter(0)).toBeLessThan(4000); // not the 5 s of Retry-After
  });

  it("retries 408 and 5xx, and a 409 other than a reused key", async () => {
    const { engram } = await tenantThroughProxy();
    setup.proxy.script({ status: 408 }, { status: 500, body: errorBody("server_error", "internal_error", "boom") });
    expect((await engram.memory.recall({ query: "x" })).memories).toEqual([]);
    expect(setup.proxy.requests).toHaveLength(3);

    const memory = await engram.memory.encode({ text: "A conflict may clear." });
    setup.proxy.requests.length = 0;
    setup.proxy.script({ status: 409, body: errorBody("invalid_request_error", "invalid_state_transition", "busy") });
    expect((await engram.memory.suppress(memory.id)).state).toBe("suppressed");
    expect(setup.proxy.requests).toHaveLength(2);
  });

  it("gives up after maxRetries and throws the last error", async () => {
    const { engram } = await tenantThroughProxy({ maxRetries: 1 });
    setup.proxy.script(unavailable, unavailable, unavailable);
    const error = await engram.memory.recall({ query: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 503, code: "service_unavailable" });
    expect(setup.proxy.requests).toHaveLength(2);

    setup.proxy.requests.length = 0;
    setup.proxy.script(unavailable);
    await expect(engram.memory.recall({ query: "x" }, { maxRetries: 0 })).rejects.toBeInstanceOf(InternalServerError);
    expect(setup.proxy.requests).toHaveLength(1);
  });

  it("does not sit through a Retry-After longer than a minute: the RateLimitError says how long", async () => {
    const { engram } = await tenantThroughProxy();
    setup.proxy.script(rateLimited({ "retry-after": "120" }));
    const error = await engram.memory.recall({ query: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(120);
    expect(setup.proxy.requests).toHaveLength(1);
  });

  it("never retries 400, 401, 403, 404 or a reused idempotency key", async () => {
    const { orgId, engram } = await tenantThroughProxy();
    await expect(engram.memory.encode({ text: "" })).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(engram.memory.reinforce("mem_missing")).rejects.toBeInstanceOf(NotFoundError);
    await expect(new Engram({ baseUrl: setup.proxy.url, token: "acm_unknown" }).memory.recall({ query: "x" })).rejects.toBeInstanceOf(AuthenticationError);
    const readOnly = new Engram({ baseUrl: setup.proxy.url, token: await setup.server.newToken(orgId, { scopes: ["memory:read"] }) });
    await expect(readOnly.memory.encode({ text: "no scope" })).rejects.toBeInstanceOf(PermissionDeniedError);
    await engram.memory.encode({ text: "first" }, { idempotencyKey: "k" });
    await expect(engram.memory.encode({ text: "second" }, { idempotencyKey: "k" })).rejects.toBeInstanceOf(ConflictError);
    expect(setup.proxy.requests.map((r) => r.path)).toEqual([
      "/v1/memory",
      "/v1/memory/mem_missing/reinforce",
      "/v1/memory/recall",
      "/v1/memory",
      "/v1/memory",
      "/v1/memory",
    ]);
  });

  it("stops waiting between retries when the caller aborts", async () => {
    const { engram } = await tenantThroughProxy();
    setup.proxy.script(rateLimited({ "retry-after": "30" }));
    const controller = new AbortController();
    const started = performance.now();
    const call = engram.memory.recall({ query: "x" }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    await expect(call).rejects.toBeInstanceOf(APIUserAbortError);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(setup.proxy.requests).toHaveLength(1);
  });
});
