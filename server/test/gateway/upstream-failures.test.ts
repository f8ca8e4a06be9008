import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answer, type ChatUpstream, fail, failMidStream, hang, startTestServer, type TestServer } from "@engram/test-support";
import { chatRequest, jsonOf, MODEL, openai, sseEvents, startGateway, tenantWithMemories } from "./support";

const TIMEOUT_MS = 1000;

let server: TestServer;
let upstream: ChatUpstream;
let stop: () => Promise<void>;
let token: string;
beforeAll(async () => {
  ({ server, upstream, stop } = await startGateway({ timeoutMs: TIMEOUT_MS }));
  ({ token } = await tenantWithMemories(server));
});
afterAll(() => stop?.());

const ask = { model: MODEL, messages: [{ role: "user" as const, content: "Anything new?" }] };

async function until(condition: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("upstream failures map to the gateway's errors", () => {
  it("upstream 429 -> 503 model_error with the upstream's Retry-After", async () => {
    upstream.behave(fail(429, "Rate limit reached for tiny-upstream", { "retry-after": "7" }));
    const error = await openai(server, token).chat.completions.create(ask).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error).toMatchObject({ status: 503, error: { type: "model_error", code: "upstream_rate_limited" } });
    expect((error as InstanceType<typeof OpenAI.APIError>).headers?.get("retry-after")).toBe("7");

    const raw = await chatRequest(server, token, ask);
    expect(raw.status).toBe(503);
    expect(raw.headers.get("retry-after")).toBe("7");
    expect((await jsonOf(raw)).error).toEqual({ message: expect.any(String), type: "model_error", code: "upstream_rate_limited", param: null, retry_after: 7 });
  });

  it("upstream 5xx -> 503 upstream_unavailable with Retry-After, streaming or not", async () => {
    upstream.behave(fail(502, "bad gateway"));
    for (const stream of [false, true]) {
      const raw = await chatRequest(server, token, { ...ask, stream });
      expect(raw.status).toBe(503);
      expect(raw.headers.get("content-type")).toMatch(/^application\/json/);
      expect(Number(raw.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect((await jsonOf(raw)).error).toMatchObject({ type: "model_error", code: "upstream_unavailable" });
    }
  });

  it("upstream 400 -> 400 upstream_rejected carrying the upstream's reason; 401 -> 500 upstream_error", async () => {
    upstream.behave(fail(400, "max_tokens is too large for this model"));
    const rejected = await openai(server, token).chat.completions.create(ask).catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(OpenAI.BadRequestError);
    expect(rejected).toMatchObject({ error: { type: "model_error", code: "upstream_rejected", message: expect.stringContaining("max_tokens is too large") } });

    upstream.behave(fail(401, "Incorrect API key provided: sk-upst****"));
    const refused = await openai(server, token).chat.completions.create(ask).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.InternalServerError);
    expect(refused).toMatchObject({ status: 500, error: { type: "model_error", code: "upstream_error" } });
    // The upstream's complaint about its own key is logged, never shown to the caller.
    expect(JSON.stringify((refused as InstanceType<typeof OpenAI.APIError>).error)).not.toContain("sk-upst");
  });

  it("an upstream that does not answer in time -> 503 upstream_timeout, and the upstream request is cancelled", async () => {
    upstream.behave(hang);
    const started = Date.now();
    const raw = await chatRequest(server, token, ask);
    expect(raw.status).toBe(503);
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(raw.headers.get("retry-after")).toBe("1");
    expect((await jsonOf(raw)).error).toMatchObject({ type: "model_error", code: "upstream_timeout" });
    await upstream.last().closed;
    expect(upstream.last().aborted).toBe(true);
  });

  it("a stream that goes silent mid-answer ends with an error event after the timeout", async () => {
    upstream.behave(answer(["one", " two"], { delayMs: TIMEOUT_MS * 3 }));
    const raw = await chatRequest(server, token, { ...ask, stream: true });
    expect(raw.status).toBe(200);
    const events = await sseEvents(raw);
    expect(events.at(-1)).not.toBe("[DONE]");
    expect(JSON.parse(events.at(-1)!)).toMatchObject({ error: { type: "model_error", code: "upstream_timeout" } });
  });

  it("an upstream that cannot be reached -> 503 upstream_unavailable", async () => {
    const closed = await startTestServer({
      inference: { modelId: MODEL, upstream: { baseUrl: "http://127.0.0.1:9/v1", apiKey: null, model: "x", timeoutMs: 2000 } },
      rateLimits: "off",
    });
    try {
      const { token: t } = await tenantWithMemories(closed);
      const raw = await chatRequest(closed, t, ask);
      expect(raw.status).toBe(503);
      expect(Number(raw.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect((await jsonOf(raw)).error).toMatchObject({ type: "model_error", code: "upstream_unavailable" });
      const health = await fetch(`${closed.url}/v1/health`);
      expect(await jsonOf(health)).toMatchObject({ status: "degraded", database: "ok", upstream: "unavailable" });
    } finally {
      await closed.stop();
    }
  });

  it("an error after streaming began arrives as a data: {error} event, and the openai client throws it", async () => {
    upstream.behave(failMidStream(["partial", " answer"], "the GPU fell over"));
    const raw = await chatRequest(server, token, { ...ask, stream: true });
    expect(raw.status).toBe(200);
    const events = await sseEvents(raw);
    expect(events.slice(0, 3).map((e) => JSON.parse(e).choices[0].delta.content)).toEqual(["", "partial", " answer"]);
    expect(events).toHaveLength(4);
    expect(JSON.parse(events[3]!)).toEqual({
      error: { message: expect.stringContaining("the GPU fell over"), type: "model_error", code: "upstream_error", param: null },
    });

    const stream = await openai(server, token).chat.completions.create({ ...ask, stream: true });
    const received: string[] = [];
    const error = await (async () => {
      for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? "");
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain("the GPU fell over");
    expect(received).toEqual(["", "partial", " answer"]);
  });
});

describe("client disconnects", () => {
  it("a streaming client that goes away cancels the upstream request", async () => {
    upstream.behave(answer(Array.from({ length: 200 }, (_, i) => ` piece${i}`), { delayMs: 20 }));
    const stream = await openai(server, token).chat.completions.create({ ...ask, stream: true });
    let pieces = 0;
    for await (const _chunk of stream) {
      if (++pieces === 3) break; // the openai client aborts its request when the loop breaks
    }
    const request = upstream.last();
    await Promise.race([request.closed, new Promise((_, reject) => setTimeout(() => reject(new Error("upstream request still open")), 2000))]);
    expect(request.aborted).toBe(true);
  });

  it("a client that goes away before a plain answer arrives cancels the upstream request", async () => {
    upstream.behave(hang);
    const controller = new AbortController();
    const pending = openai(server, token).chat.completions.create(ask, { signal: controller.signal }).catch((e: unknown) => e);
    const before = upstream.requests.length;
    await until(() => upstream.requests.length === before + 1);
    controller.abort();
    expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
    const request = upstream.last();
    await Promise.race([request.closed, new Promise((_, reject) => setTimeout(() => reject(new Error("upstream request still open")), TIMEOUT_MS / 2))]);
    expect(request.aborted).toBe(true);
  });
});
