import { memoryScopes } from "@engram/contract";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answer, type ChatUpstream, rawRequest, startChatUpstream, startServerOn, startTestServer, type TestServer, type TestServerOptions } from "@engram/test-support";
import { DEFAULT_RATE_LIMITS, parseRateLimitSetting, rateLimitPolicy } from "../../src/domain/rate-limits/policy";
import type { RunningServer } from "../../src/server";
import { chatRequest, jsonOf, MODEL, openai } from "./support";

/** The servers' clock: 5 s into a minute, moved by the tests. */
let now = Date.UTC(2030, 0, 1, 12, 0, 5);
const clock = () => new Date(now);

let upstream: ChatUpstream;
let server: TestServer;
let options: TestServerOptions;
beforeAll(async () => {
  upstream = await startChatUpstream();
  upstream.behave(answer(["ok"]));
  options = {
    now: clock,
    rateLimits: parseRateLimitSetting("*.memory=5,*.events=3,*.inference=4,spark.inference=6"),
    inference: { modelId: MODEL, upstream: { baseUrl: upstream.baseUrl, apiKey: null, model: "tiny", timeoutMs: 5000 } },
  };
  server = await startTestServer(options);
});
afterAll(async () => {
  await server?.stop();
  await upstream?.close();
});

const allScopes = [...memoryScopes, "inference:chat" as const];

async function tenant(plan: "free" | "spark" = "free") {
  const orgId = await server.newOrg({ plan });
  return { orgId, token: await server.newToken(orgId, { scopes: allScopes }) };
}

const retrieve = (token: string, url = server.url) => rawRequest(url, "/v1/memory/retrieve", { token, body: JSON.stringify({ query: "anything" }) });
const chat = { model: MODEL, messages: [{ role: "user" as const, content: "hello" }] };

function limitHeaders(headers: Headers) {
  return {
    limit: headers.get("ratelimit-limit"),
    remaining: headers.get("ratelimit-remaining"),
    reset: headers.get("ratelimit-reset"),
    legacy: [headers.get("x-ratelimit-limit"), headers.get("x-ratelimit-remaining"), headers.get("x-ratelimit-reset")],
  };
}

describe("rate limits per organization, environment and route group", () => {
  it("puts RateLimit-* and X-RateLimit-* on every limited response, successes and errors alike", async () => {
    const { token } = await tenant();
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push(limitHeaders((await retrieve(token)).headers));
    const invalid = await rawRequest(server.url, "/v1/memory/retrieve", { token, body: JSON.stringify({ query: "" }) });
    expect(invalid.status).toBe(400);
    seen.push(limitHeaders(invalid.headers));
    expect(seen).toEqual(
      ["4", "3", "2", "1"].map((remaining) => ({ limit: "5", remaining, reset: "55", legacy: ["5", remaining, "55"] })),
    );

    const event = await rawRequest(server.url, "/v1/memory/events", { token, body: JSON.stringify({ type: "deploy.completed", text: "shipped" }) });
    expect(event.status).toBe(201);
    expect(limitHeaders(event.headers)).toMatchObject({ limit: "3", remaining: "2" });

    const models = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${token}` } });
    expect(limitHeaders(models.headers)).toMatchObject({ limit: "4", remaining: "3" });
    const completion = await openai(server, token).chat.completions.create(chat).withResponse();
    expect(limitHeaders(completion.response.headers)).toMatchObject({ limit: "4", remaining: "2" });

    // Streaming answers carry them too: they are sent before the first byte of the stream.
    const stream = await chatRequest(server, token, { ...chat, stream: true });
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(limitHeaders(stream.headers)).toMatchObject({ limit: "4", remaining: "1", reset: "55" });
    await stream.text();

    // Unauthenticated requests and the health check are not counted.
    expect(limitHeaders((await fetch(`${server.url}/v1/health`)).headers).limit).toBeNull();
    expect(limitHeaders((await retrieve("acm_invalid")).headers).limit).toBeNull();
  });

  it("answers 429 with Retry-After and retry_after once the window's requests are spent", async () => {
    const { token } = await tenant();
    for (let i = 0; i < 5; i++) expect((await retrieve(token)).status).toBe(200);
    now += 15_000; // 20 s into the minute: 40 s left
    try {
      const limited = await retrieve(token);
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBe("40");
      expect(limitHeaders(limited.headers)).toEqual({ limit: "5", remaining: "0", reset: "40", legacy: ["5", "0", "40"] });
      expect(limited.body).toEqual({
        error: { message: expect.stringContaining("Rate limit"), type: "rate_limit_error", code: "rate_limit_exceeded", param: null, retry_after: 40 },
      });
    } finally {
      now -= 15_000;
    }
  });

  it("limits the gateway too: the openai client raises RateLimitError, and a stream is refused before it starts", async () => {
    const { token } = await tenant();
    const client = openai(server, token);
    const before = upstream.requests.length;
    for (let i = 0; i < 4; i++) await client.chat.completions.create(chat);
    const error = await client.chat.completions.create(chat).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, type: "rate_limit_error", code: "rate_limit_exceeded" });
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers?.get("retry-after")).toBe("55");

    const stream = await chatRequest(server, token, { ...chat, stream: true });
    expect(stream.status).toBe(429);
    expect(stream.headers.get("content-type")).toMatch(/^application\/json/);
    expect((await jsonOf(stream)).error.retry_after).toBe(55);
    await expect(client.models.list()).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    expect(upstream.requests.length).toBe(before + 4);
  });

  it("starts afresh when the window resets", async () => {
    const { token } = await tenant();
    for (let i = 0; i < 5; i++) await retrieve(token);
    expect((await retrieve(token)).status).toBe(429);
    now += 60_000;
    try {
      const fresh = await retrieve(token);
      expect(fresh.status).toBe(200);
      expect(limitHeaders(fresh.headers)).toMatchObject({ limit: "5", remaining: "4", reset: "55" });
    } finally {
      now -= 60_000;
    }
    // Back in the spent window (a clock that steps back), the requests there still count.
    expect((await retrieve(token)).status).toBe(429);
  });

  it("counts each environment separately, with Test and Staging at half of Production by default", async () => {
    const { orgId, token } = await tenant();
    const testToken = await server.newToken(orgId, { scopes: allScopes, environment: "test" });
    const stagingToken = await server.newToken(orgId, { scopes: allScopes, environment: "staging" });
    for (let i = 0; i < 5; i++) await retrieve(token);
    expect((await retrieve(token)).status).toBe(429);

    const inTest = await retrieve(testToken);
    expect(inTest.status).toBe(200);
    expect(limitHeaders(inTest.headers)).toMatchObject({ limit: "2", remaining: "1" });
    expect((await retrieve(testToken)).status).toBe(200);
    expect((await retrieve(testToken)).status).toBe(429);
    expect(limitHeaders((await retrieve(stagingToken)).headers)).toMatchObject({ limit: "2", remaining: "1" });
  });

  it("counts each route group and each organization separately, and follows the plan", async () => {
    const { token } = await tenant();
    for (let i = 0; i < 5; i++) await retrieve(token);
    expect((await retrieve(token)).status).toBe(429);
    const event = await rawRequest(server.url, "/v1/memory/events", { token, body: JSON.stringify({ type: "deploy.completed", text: "shipped" }) });
    expect(event.status).toBe(201);
    expect((await openai(server, token).chat.completions.create(chat).withResponse()).response.status).toBe(200);

    const other = await tenant();
    expect((await retrieve(other.token)).status).toBe(200);

    const spark = await tenant("spark");
    const sparkAnswer = await openai(server, spark.token).chat.completions.create(chat).withResponse();
    expect(limitHeaders(sparkAnswer.response.headers)).toMatchObject({ limit: "6", remaining: "5" });
  });

  it("shares the counters between server processes through the database", async () => {
    const twin: RunningServer = await startServerOn(server.database, options);
    try {
      const { orgId, token } = await tenant();
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await retrieve(token, i % 2 === 0 ? server.url : twin.url)).status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.slice(5)).toEqual([429, 429, 429]);
      const [row] = await server.db.rateLimitCounter.findMany({ where: { orgId } });
      expect(row).toMatchObject({ environment: "production", routeGroup: "memory", windowStart: Math.floor(now / 60_000) });
      // Five admitted, plus at most one refused claim per process before it learned the window was spent.
      expect(row!.count).toBeGreaterThanOrEqual(5);
      expect(row!.count).toBeLessThanOrEqual(7);
    } finally {
      await twin.close();
    }
  });

  it("never admits more than the limit when many requests race on two processes", async () => {
    const twin: RunningServer = await startServerOn(server.database, options);
    try {
      const { token } = await tenant();
      const statuses = await Promise.all(Array.from({ length: 24 }, (_, i) => retrieve(token, i % 2 === 0 ? server.url : twin.url).then((r) => r.status)));
      // Near the limit every admission is its own atomic claim: exactly the limit, however the requests interleave.
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(19);
    } finally {
      await twin.close();
    }
  });
});

describe("rate-limit settings", () => {
  it("defaults per plan and environment, overridable per plan, group and environment", () => {
    const defaults = rateLimitPolicy();
    expect(defaults.limitFor("free", "production", "inference")).toBe(DEFAULT_RATE_LIMITS.free.inference);
    expect(defaults.limitFor("boost", "production", "memory")).toBe(DEFAULT_RATE_LIMITS.boost.memory);
    expect(defaults.limitFor("free", "test", "memory")).toBe(DEFAULT_RATE_LIMITS.free.memory / 2);

    const custom = rateLimitPolicy(parseRateLimitSetting("*.*=100, seed.events=1000, *.inference.staging=7"));
    expect(custom.limitFor("free", "production", "memory")).toBe(100);
    expect(custom.limitFor("free", "test", "memory")).toBe(50);
    expect(custom.limitFor("seed", "production", "events")).toBe(1000);
    expect(custom.limitFor("seed", "staging", "inference")).toBe(7);
    expect(custom.limitFor("seed", "production", "inference")).toBe(100);

    expect(rateLimitPolicy(parseRateLimitSetting("off")).limitFor("free", "production", "memory")).toBeNull();
    expect(() => parseRateLimitSetting("free.chat=5")).toThrow(/ENGRAM_RATE_LIMITS/);
    expect(() => parseRateLimitSetting("free.memory=lots")).toThrow(/ENGRAM_RATE_LIMITS/);
  });
});
