import { createServer } from "node:http";
import { describe, expect, it } from "vitest";
import { errorBody, listenOnLoopback, useServerBehindProxy } from "@engram/test-support";
import {
  APIConnectionError,
  APIError,
  AuthenticationError,
  ConflictError,
  Engram,
  EngramError,
  InternalServerError,
  InvalidRequestError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from "../src";

const setup = useServerBehindProxy();

/** An address where nothing listens: a port the system just gave out and took back. */
async function closedPortUrl(): Promise<string> {
  const listener = createServer();
  const port = await listenOnLoopback(listener);
  await new Promise((resolve) => listener.close(resolve));
  return `http://127.0.0.1:${port}`;
}

const failure = (call: Promise<unknown>) => call.then(() => expect.unreachable("the call succeeded"), (error: unknown) => error as APIError);

/** Every error of an answer carries these, whatever its class. */
function expectAnswered(error: APIError, status: number, type: string, code: string) {
  expect(error).toBeInstanceOf(APIError);
  expect(error).toBeInstanceOf(EngramError);
  expect(error).toMatchObject({ status, type, code });
  expect(error.message.length).toBeGreaterThan(0);
  expect(error.requestId).toMatch(/^req_/);
  expect(error.headers?.get("x-request-id")).toBe(error.requestId);
}

describe("one error class per kind, from the real server", () => {
  it("400 InvalidRequestError names the field at fault", async () => {
    const engram = new Engram({ baseUrl: setup.server.url, token: (await setup.server.newTenant()).token });
    const error = await failure(engram.memory.encode({ text: "ok", confidence: 2 }));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expectAnswered(error, 400, "invalid_request_error", "invalid_parameter");
    expect(error.param).toBe("confidence");
  });

  it("413 is an InvalidRequestError too", async () => {
    const engram = new Engram({ baseUrl: setup.server.url, token: (await setup.server.newTenant()).token });
    const error = await failure(engram.memory.encode({ text: "x".repeat(1_100_000) }));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expectAnswered(error, 413, "invalid_request_error", "payload_too_large");
  });

  it("401 AuthenticationError", async () => {
    const engram = new Engram({ baseUrl: setup.server.url, token: `acm_${"z".repeat(43)}` });
    const error = await failure(engram.memory.recall({ query: "x" }));
    expect(error).toBeInstanceOf(AuthenticationError);
    expectAnswered(error, 401, "authentication_error", "invalid_api_key");
  });

  it("403 PermissionDeniedError names the missing scope", async () => {
    const { orgId } = await setup.server.newTenant();
    const readOnly = new Engram({ baseUrl: setup.server.url, token: await setup.server.newToken(orgId, { scopes: ["memory:read"] }) });
    const error = await failure(readOnly.memory.encode({ text: "nope" }));
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expectAnswered(error, 403, "authorization_error", "insufficient_scope");
    expect(error.message).toContain("memory:write");
  });

  it("404 NotFoundError", async () => {
    const engram = new Engram({ baseUrl: setup.server.url, token: (await setup.server.newTenant()).token });
    const error = await failure(engram.memory.provenance("mem_nope"));
    expect(error).toBeInstanceOf(NotFoundError);
    expectAnswered(error, 404, "invalid_request_error", "memory_not_found");
  });

  it("409 ConflictError for an invalid state transition", async () => {
    const engram = new Engram({ baseUrl: setup.server.url, token: (await setup.server.newTenant()).token, maxRetries: 0 });
    const memory = await engram.memory.encode({ text: "Tombstones are final." });
    await engram.memory.tombstone(memory.id);
    const error = await failure(engram.memory.suppress(memory.id));
    expect(error).toBeInstanceOf(ConflictError);
    expectAnswered(error, 409, "invalid_request_error", "invalid_state_transition");
  });
});

describe("error classes for answers the server gives under load, through a real proxy", () => {
  const viaProxy = async () => new Engram({ baseUrl: setup.proxy.url, token: (await setup.server.newTenant()).token, maxRetries: 0 });

  it("429 RateLimitError with retryAfter and the rate-limit headers", async () => {
    const engram = await viaProxy();
    const headers = { "retry-after": "7", "ratelimit-limit": "60", "ratelimit-remaining": "0", "ratelimit-reset": "7", "x-request-id": "req_proxy_1" };
    setup.proxy.script({ status: 429, headers, body: errorBody("rate_limit_error", "rate_limit_exceeded", "Slow down", { retry_after: 7 }) });
    const error = await failure(engram.memory.recall({ query: "x" }));
    expect(error).toBeInstanceOf(RateLimitError);
    expectAnswered(error, 429, "rate_limit_error", "rate_limit_exceeded");
    expect((error as RateLimitError).retryAfter).toBe(7);
    expect(error.headers?.get("ratelimit-remaining")).toBe("0");
  });

  it("5xx InternalServerError, also when the body is not Engram's JSON", async () => {
    const engram = await viaProxy();
    setup.proxy.script({ status: 500, headers: { "x-request-id": "req_proxy_2" }, body: errorBody("server_error", "internal_error", "Something went wrong") });
    expectAnswered(await failure(engram.memory.recall({ query: "x" })), 500, "server_error", "internal_error");

    setup.proxy.script({ status: 502, headers: { "content-type": "text/html" } });
    const gateway = await failure(engram.memory.recall({ query: "x" }));
    expect(gateway).toBeInstanceOf(InternalServerError);
    expect(gateway).toMatchObject({ status: 502, type: null, code: null, message: "Engram answered HTTP 502" });
  });

  it("another status is a plain APIError", async () => {
    const engram = await viaProxy();
    setup.proxy.script({ status: 405, body: errorBody("invalid_request_error", "method_not_allowed", "No") });
    const error = await failure(engram.memory.recall({ query: "x" }));
    expect(error.constructor).toBe(APIError);
    expect(error).toMatchObject({ status: 405, code: "method_not_allowed" });
  });

  it("APIConnectionError when nothing answers", async () => {
    const offline = new Engram({ baseUrl: await closedPortUrl(), token: "acm_x", maxRetries: 0 });
    const error = await failure(offline.memory.recall({ query: "x" }));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).toMatchObject({ status: undefined, headers: undefined, requestId: null });
    expect(error.message).toContain("ECONNREFUSED");
  });
});
