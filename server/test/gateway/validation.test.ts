import { countTokens } from "gpt-tokenizer";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answer, type ChatUpstream, type TestServer } from "@engram/test-support";
import { chatRequest, jsonOf, MODEL, openai, startGateway, tenantWithMemories } from "./support";

let server: TestServer;
let upstream: ChatUpstream;
let stop: () => Promise<void>;
let token: string;
beforeAll(async () => {
  ({ server, upstream, stop } = await startGateway());
  ({ token } = await tenantWithMemories(server));
});
afterAll(() => stop?.());

const user = [{ role: "user", content: "hi" }];
type Case = [description: string, body: unknown, status: number, code: string, param: string | null];

const cases: Case[] = [
  ["model missing", { messages: user }, 400, "missing_parameter", "model"],
  ["model not a string", { model: 7, messages: user }, 400, "invalid_parameter", "model"],
  ["an unknown model", { model: "gpt-4o", messages: user }, 404, "model_not_found", "model"],
  ["messages missing", { model: MODEL }, 400, "missing_parameter", "messages"],
  ["messages empty", { model: MODEL, messages: [] }, 400, "invalid_parameter", "messages"],
  ["messages without a user turn", { model: MODEL, messages: [{ role: "system", content: "be brief" }] }, 400, "invalid_parameter", "messages"],
  ["a message role outside system/user/assistant", { model: MODEL, messages: [{ role: "tool", content: "x" }] }, 400, "invalid_parameter", "messages.0.role"],
  ["message content that is not a string", { model: MODEL, messages: [{ role: "user", content: [{ type: "text", text: "x" }] }] }, 400, "invalid_parameter", "messages.0.content"],
  ["message content missing", { model: MODEL, messages: [{ role: "user" }] }, 400, "missing_parameter", "messages.0.content"],
  ["an unknown message field", { model: MODEL, messages: [{ role: "user", content: "x", tool_calls: [] }] }, 400, "unknown_parameter", "messages.0.tool_calls"],
  ["temperature above 2", { model: MODEL, messages: user, temperature: 2.5 }, 400, "invalid_parameter", "temperature"],
  ["temperature below 0", { model: MODEL, messages: user, temperature: -0.1 }, 400, "invalid_parameter", "temperature"],
  ["temperature as a string", { model: MODEL, messages: user, temperature: "hot" }, 400, "invalid_parameter", "temperature"],
  ["top_p above 1", { model: MODEL, messages: user, top_p: 1.5 }, 400, "invalid_parameter", "top_p"],
  ["frequency_penalty above 2", { model: MODEL, messages: user, frequency_penalty: 3 }, 400, "invalid_parameter", "frequency_penalty"],
  ["presence_penalty below -2", { model: MODEL, messages: user, presence_penalty: -2.1 }, 400, "invalid_parameter", "presence_penalty"],
  ["max_tokens 0", { model: MODEL, messages: user, max_tokens: 0 }, 400, "invalid_parameter", "max_tokens"],
  ["max_tokens not an integer", { model: MODEL, messages: user, max_tokens: 1.5 }, 400, "invalid_parameter", "max_tokens"],
  ["max_tokens beyond the context", { model: MODEL, messages: user, max_tokens: 8193 }, 400, "invalid_parameter", "max_tokens"],
  ["stop with more than 4 sequences", { model: MODEL, messages: user, stop: ["a", "b", "c", "d", "e"] }, 400, "invalid_parameter", "stop"],
  ["stop as a number", { model: MODEL, messages: user, stop: 42 }, 400, "invalid_parameter", "stop"],
  ["stream not a boolean", { model: MODEL, messages: user, stream: "yes" }, 400, "invalid_parameter", "stream"],
  ["stream_options.include_usage not a boolean", { model: MODEL, messages: user, stream: true, stream_options: { include_usage: "yes" } }, 400, "invalid_parameter", "stream_options.include_usage"],
  ["an unknown parameter", { model: MODEL, messages: user, tools: [] }, 400, "unknown_parameter", "tools"],
  ["a body that is an array", [{ model: MODEL }], 400, "invalid_parameter", null],
  ["malformed JSON", '{"model": "x"', 400, "invalid_json", null],
];

describe("request validation, answered in OpenAI's error shape", () => {
  it.each(cases)("%s", async (_description, body, status, code, param) => {
    const before = upstream.requests.length;
    for (const stream of [false, true]) {
      const payload = typeof body === "object" && body !== null && !Array.isArray(body) ? { ...body, ...(stream && !("stream" in body) ? { stream } : {}) } : body;
      const res = await chatRequest(server, token, payload);
      expect(res.status).toBe(status);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      const { error } = await jsonOf(res);
      expect(error).toEqual({ message: expect.any(String), type: "invalid_request_error", code, param });
    }
    expect(upstream.requests.length).toBe(before);
  });

  it("raises the openai package's error classes for 400, 401, 403 and 404", async () => {
    const client = openai(server, token);
    const badRequest = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "x" }], temperature: 9 }).catch((e: unknown) => e);
    expect(badRequest).toBeInstanceOf(OpenAI.BadRequestError);
    expect(badRequest).toMatchObject({ status: 400, param: "temperature", code: "invalid_parameter", type: "invalid_request_error" });

    const notFound = await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(OpenAI.NotFoundError);
    expect(notFound).toMatchObject({ code: "model_not_found", param: "model" });

    const unauthenticated = await openai(server, "acm_not-a-real-token").chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(unauthenticated).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(unauthenticated).toMatchObject({ status: 401, code: "invalid_api_key", type: "authentication_error" });
    await expect(openai(server, "acm_not-a-real-token").models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);

    const { token: memoryOnly } = await tenantWithMemories(server, [], ["memory:read"]);
    const forbidden = await openai(server, memoryOnly).chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(forbidden).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(forbidden).toMatchObject({ status: 403, code: "insufficient_scope", type: "authorization_error" });
    expect((forbidden as Error).message).toContain("inference:chat");
    // The model list needs only a valid token.
    expect((await openai(server, memoryOnly).models.list()).data).toHaveLength(1);
  });

  it("validates the agent in the path and the header", async () => {
    const inPath = await chatRequest(server, token, { model: MODEL, messages: user }, { path: "/v1/agents/Not_A_Slug/chat/completions" });
    expect(inPath.status).toBe(400);
    expect((await jsonOf(inPath)).error).toMatchObject({ code: "invalid_parameter", param: "agentSlug" });
    const inHeader = await chatRequest(server, token, { model: MODEL, messages: user }, { headers: { "x-service-agent": "UPPER" } });
    expect((await jsonOf(inHeader)).error).toMatchObject({ code: "invalid_parameter", param: "X-Service-Agent" });
    const conflict = await chatRequest(server, token, { model: MODEL, messages: user }, { path: "/v1/agents/triage/chat/completions", headers: { "x-service-agent": "support" } });
    expect(conflict.status).toBe(400);
    expect((await jsonOf(conflict)).error).toMatchObject({ code: "agent_conflict", param: "X-Service-Agent" });
  });
});

/** A user message of exactly `tokens` tokens (o200k: " go" is one token). */
function messageOfTokens(tokens: number): string {
  const text = "go" + " go".repeat(tokens - 1);
  expect(countTokens(text)).toBe(tokens);
  return text;
}

describe("the 8,192-token context", () => {
  // Ten distinct memories about deploying payments-api (distinct enough not to be merged as near-duplicates).
  const topics = ["canary", "rollback", "feature flags", "database migrations", "secrets rotation", "load tests", "change freeze", "approvals", "smoke tests", "status page"];
  const steps = ["checks", "waits for", "records", "announces", "verifies", "pauses on", "escalates", "documents", "measures", "reviews"];
  const deployFacts = topics.map((topic, i) => ({
    subject: "payments-api",
    text:
      `Deploying payments-api: the ${topic} step ${steps[i]} ${topic} ${i} before traffic shifts. ` +
      `${topic} owners ${i} ${topic} tooling ${i} ${topic} dashboards ${i} ${topic} history ${i}. `.repeat(6),
  }));

  it("refuses with 400 context_length_exceeded when the conversation and max_tokens do not fit, without calling the upstream", async () => {
    const before = upstream.requests.length;
    // 3 (reply) + 3 (framing) + 1 (role) + content: 8,192 - 2,048 = 6,144 allows 6,137 content tokens.
    const tooLong = await openai(server, token).chat.completions.create({ model: MODEL, messages: [{ role: "user", content: messageOfTokens(6138) }] }).catch((e: unknown) => e);
    expect(tooLong).toBeInstanceOf(OpenAI.BadRequestError);
    expect(tooLong).toMatchObject({ code: "context_length_exceeded", param: "messages", type: "invalid_request_error" });
    expect((tooLong as Error).message).toContain("8192");

    const noRoom = await chatRequest(server, token, { model: MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: 8192 });
    expect(noRoom.status).toBe(400);
    expect((await jsonOf(noRoom)).error.code).toBe("context_length_exceeded");
    expect(upstream.requests.length).toBe(before);

    upstream.behave(answer(["ok"]));
    const fits = await openai(server, token).chat.completions.create({ model: MODEL, messages: [{ role: "user", content: messageOfTokens(6137) }] });
    expect(fits.usage!.prompt_tokens + 2048).toBe(8192);
  });

  it("trims memory, never the conversation, to stay within the context", async () => {
    const { token: rich } = await tenantWithMemories(server, deployFacts);
    upstream.behave(answer(["ok"]));
    const question = "How does payments-api deploy?";

    const roomy = await openai(server, rich).chat.completions.create({ model: MODEL, messages: [{ role: "user", content: question }] }).withResponse();
    const roomyCount = Number(roomy.response.headers.get("x-engram-memories-used"));
    expect(roomyCount).toBeGreaterThanOrEqual(8);
    expect(roomy.data.usage!.prompt_tokens).toBeLessThanOrEqual(2048 + 40);

    // A long conversation leaves about 300 tokens for memory.
    const long = messageOfTokens(5700);
    const messages = [
      { role: "user" as const, content: long },
      { role: "assistant" as const, content: "Noted." },
      { role: "user" as const, content: question },
    ];
    const tight = await openai(server, rich).chat.completions.create({ model: MODEL, messages }).withResponse();
    const tightCount = Number(tight.response.headers.get("x-engram-memories-used"));
    expect(tightCount).toBeGreaterThanOrEqual(1);
    expect(tightCount).toBeLessThan(roomyCount);
    expect(tight.data.usage!.prompt_tokens + 2048).toBeLessThanOrEqual(8192);
    const sent = upstream.last().body.messages as Array<{ role: string; content: string }>;
    expect(sent.filter((m) => m.role !== "system")).toEqual(messages);
    expect(countTokens(sent[0]!.content)).toBeLessThanOrEqual(8192 - 2048 - countTokens(long) - 30);

    // Lowering max_tokens makes room for more memory.
    const roomier = await openai(server, rich).chat.completions.create({ model: MODEL, messages, max_tokens: 1024 }).withResponse();
    expect(Number(roomier.response.headers.get("x-engram-memories-used"))).toBeGreaterThan(tightCount);
    expect(roomier.data.usage!.prompt_tokens + 1024).toBeLessThanOrEqual(8192);
  });
});
