import { ZChatCompletion, ZChatCompletionChunk } from "@engram/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answer, type ChatUpstream, type TestServer } from "@engram/test-support";
import { chatRequest, MODEL, openai, sseEvents, startGateway, tenantWithMemories, UPSTREAM_MODEL } from "./support";

let server: TestServer;
let upstream: ChatUpstream;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ server, upstream, stop } = await startGateway());
});
afterAll(() => stop?.());

const deployMemory = { text: "Payments-api deploys with make release after CI is green.", subject: "payments-api" };
const refundMemory = { text: "Refunds over $500 need a second approver from finance.", subject: "refunds" };

/** The system message the gateway injected into what the upstream received, if any. */
function injectedBlock(messages: Array<{ role: string; content: string }>): string | undefined {
  return messages.find((m) => m.role === "system" && m.content.startsWith("What the organization knows"))?.content;
}

describe("chat completions through an OpenAI-compatible upstream", () => {
  it("answers a plain request with the conversation grounded in memory, in the OpenAI chat completion shape", async () => {
    const { token } = await tenantWithMemories(server, [deployMemory, refundMemory]);
    upstream.behave(answer(["Run make release", " once CI is green."]));
    const { data, response } = await openai(server, token)
      .chat.completions.create({
        model: MODEL,
        messages: [
          { role: "system", content: "You are the on-call assistant." },
          { role: "user", content: "How do we deploy payments-api?" },
        ],
      })
      .withResponse();

    expect(ZChatCompletion.strict().parse(data)).toBeTruthy();
    expect(data).toMatchObject({
      object: "chat.completion",
      model: MODEL,
      choices: [{ index: 0, message: { role: "assistant", content: "Run make release once CI is green." }, finish_reason: "stop" }],
    });
    expect(data.id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
    expect(data.created).toBeCloseTo(Date.now() / 1000, -1);
    // Usage is counted by the gateway's tokenizer, not copied from the upstream (which said 999).
    expect(data.usage!.completion_tokens).toBeGreaterThan(3);
    expect(data.usage!.completion_tokens).toBeLessThan(20);
    expect(data.usage!.total_tokens).toBe(data.usage!.prompt_tokens + data.usage!.completion_tokens);
    expect(response.headers.get("x-engram-memories-used")).toBe("1");

    const sent = upstream.last();
    expect(sent.headers.authorization).toBe("Bearer sk-upstream-secret");
    expect(sent.body.model).toBe(UPSTREAM_MODEL);
    expect(sent.body.messages.map((m: { role: string }) => m.role)).toEqual(["system", "system", "user"]);
    expect(sent.body.messages[0].content).toBe("You are the on-call assistant.");
    const block = injectedBlock(sent.body.messages)!;
    expect(block).toContain(deployMemory.text);
    expect(block).not.toContain(refundMemory.text);
    // The prompt counted includes the injected memory.
    expect(data.usage!.prompt_tokens).toBeGreaterThan(30);
  });

  it("grounds the answer in a memory too long for the block on its own, cut to fit, and retrieve's block lists it too", async () => {
    // About 3,200 tokens in 8,000 characters: more than the block's 2,048.
    const steps = Array.from({ length: 400 }, (_, i) => `Step ${i}: drain zk-${i}.q/${i * 7}, restart b${i % 7}.`).join(" ");
    const { token } = await tenantWithMemories(server, [{ text: `Restarting the zookeeper quorum. ${steps}`.slice(0, 8000), subject: "zookeeper" }]);
    upstream.behave(answer(["Drain the quorum first."]));
    const { data, response } = await openai(server, token)
      .chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "How do we restart the zookeeper quorum?" }] })
      .withResponse();
    expect(response.headers.get("x-engram-memories-used")).toBe("1");
    const block = injectedBlock(upstream.last().body.messages)!;
    expect(block).toContain("Restarting the zookeeper quorum. Step 0: drain zk-0.q/0");
    expect(block.endsWith(" …")).toBe(true);
    expect(data.usage!.prompt_tokens).toBeGreaterThan(2000);

    const retrieved = await fetch(`${server.url}/v1/memory/retrieve`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ query: "zookeeper quorum restart", includeContext: true }),
    }).then((r) => r.json() as Promise<{ memories: unknown[]; context: { systemBlock: string; stats: { tokens: number } } }>);
    expect(retrieved.memories).toHaveLength(1);
    expect(retrieved.context.systemBlock).toContain("Restarting the zookeeper quorum. Step 0: drain zk-0.q/0");
    expect(retrieved.context.stats.tokens).toBeLessThanOrEqual(2048);
  });

  it("forwards the sampling parameters as given, and the documented defaults when omitted", async () => {
    const { token } = await tenantWithMemories(server);
    const client = openai(server, token);
    await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "Say hi" }],
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 64,
      frequency_penalty: 0.5,
      presence_penalty: -0.5,
      stop: ["\n\n", "END"],
      user: "user-42",
    });
    expect(upstream.last().body).toEqual({
      model: UPSTREAM_MODEL,
      messages: [{ role: "user", content: "Say hi" }],
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 64,
      frequency_penalty: 0.5,
      presence_penalty: -0.5,
      stop: ["\n\n", "END"],
      user: "user-42",
      stream: false,
    });

    await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Say hi" }], stop: "STOP" });
    expect(upstream.last().body).toEqual({
      model: UPSTREAM_MODEL,
      messages: [{ role: "user", content: "Say hi" }],
      temperature: 1,
      top_p: 1,
      max_tokens: 2048,
      frequency_penalty: 0,
      presence_penalty: 0,
      stop: "STOP",
      stream: false,
    });
  });

  it("streams chunks in order: the role first, the pieces, finish_reason, usage when asked, then [DONE]", async () => {
    const { token } = await tenantWithMemories(server, [deployMemory]);
    upstream.behave(answer(["Run", " make", " release", "."]));
    const stream = await openai(server, token).chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "How do we deploy payments-api?" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    for (const chunk of chunks) expect(ZChatCompletionChunk.strict().parse(chunk)).toBeTruthy();

    expect(chunks[0]!.choices).toEqual([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]);
    expect(chunks.slice(1, 5).map((c) => c.choices[0]!.delta.content)).toEqual(["Run", " make", " release", "."]);
    expect(chunks[5]!.choices).toEqual([{ index: 0, delta: {}, finish_reason: "stop" }]);
    expect(chunks[6]!.choices).toEqual([]);
    expect(chunks[6]!.usage).toMatchObject({ completion_tokens: expect.any(Number), prompt_tokens: expect.any(Number) });
    expect(chunks[6]!.usage!.total_tokens).toBe(chunks[6]!.usage!.prompt_tokens + chunks[6]!.usage!.completion_tokens);
    expect(chunks.slice(0, 6).every((c) => c.usage === null)).toBe(true);
    expect(chunks).toHaveLength(7);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.model === MODEL && c.object === "chat.completion.chunk")).toBe(true);

    expect(upstream.last().body.stream).toBe(true);
    expect(injectedBlock(upstream.last().body.messages)).toContain(deployMemory.text);
  });

  it("sends SSE with the memory and rate-limit headers up front and data: [DONE] last", async () => {
    const { token } = await tenantWithMemories(server, [deployMemory]);
    upstream.behave(answer(["a", "b"]));
    const response = await chatRequest(server, token, { model: MODEL, messages: [{ role: "user", content: "deploy payments-api" }], stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(response.headers.get("x-engram-memories-used")).toBe("1");
    const events = await sseEvents(response);
    expect(events.at(-1)).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? null)).toEqual(["", "a", "b", null]);
    expect(chunks.map((c) => c.choices[0].finish_reason)).toEqual([null, null, null, "stop"]);
    // Without include_usage the chunks carry no usage field at all.
    expect(chunks.every((c) => !("usage" in c))).toBe(true);
  });

  it("passes the upstream's finish_reason length through", async () => {
    const { token } = await tenantWithMemories(server);
    upstream.behave(answer(["cut"], { finishReason: "length" }));
    const completion = await openai(server, token).chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "long story" }], max_tokens: 1 });
    expect(completion.choices[0]!.finish_reason).toBe("length");
  });

  it("retrieves for the latest user turn with earlier user turns as context", async () => {
    const { token } = await tenantWithMemories(server, [deployMemory, refundMemory]);
    upstream.behave(answer(["ok"]));
    const { response } = await openai(server, token)
      .chat.completions.create({
        model: MODEL,
        messages: [
          { role: "user", content: "Tell me about payments-api." },
          { role: "assistant", content: "It handles card payments. Refunds are separate." },
          { role: "user", content: "And how is it deployed?" },
        ],
      })
      .withResponse();
    const block = injectedBlock(upstream.last().body.messages)!;
    expect(block).toContain(deployMemory.text);
    // The assistant turn mentioned refunds, but assistant turns do not steer retrieval.
    expect(block).not.toContain(refundMemory.text);
    expect(response.headers.get("x-engram-memories-used")).toBe("1");
    // The memory block goes before the conversation, which is forwarded unchanged.
    expect(upstream.last().body.messages.slice(1)).toEqual([
      { role: "user", content: "Tell me about payments-api." },
      { role: "assistant", content: "It handles card payments. Refunds are separate." },
      { role: "user", content: "And how is it deployed?" },
    ]);
  });

  it("injects nothing when no memory is relevant, and skips retrieval with X-Engram-Memory: off", async () => {
    const { token } = await tenantWithMemories(server, [deployMemory]);
    upstream.behave(answer(["ok"]));
    const unrelated = await openai(server, token).chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "What is the capital of Peru?" }] }).withResponse();
    expect(unrelated.response.headers.get("x-engram-memories-used")).toBe("0");
    expect(upstream.last().body.messages).toEqual([{ role: "user", content: "What is the capital of Peru?" }]);

    const off = await openai(server, token, { headers: { "X-Engram-Memory": "off" } })
      .chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "How do we deploy payments-api?" }] })
      .withResponse();
    expect(off.response.headers.get("x-engram-memories-used")).toBe("0");
    expect(upstream.last().body.messages).toEqual([{ role: "user", content: "How do we deploy payments-api?" }]);
  });
});

describe("agent boundaries", () => {
  const memories = [
    { text: "Release notes go to the changelog channel.", subject: "release" },
    { text: "Triage labels release bugs as P1.", subject: "release", agent: "triage" },
    { text: "Support answers release questions in Zendesk.", subject: "release", agent: "support" },
  ];

  it("the agent path form sees the agent's own and shared memories only", async () => {
    const { token } = await tenantWithMemories(server, memories);
    upstream.behave(answer(["ok"]));
    const { response } = await openai(server, token, { agent: "triage" })
      .chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "What do we know about release?" }] })
      .withResponse();
    expect(upstream.last().path).toBe("/v1/chat/completions");
    const block = injectedBlock(upstream.last().body.messages)!;
    expect(block).toContain("changelog channel");
    expect(block).toContain("Triage labels");
    expect(block).not.toContain("Zendesk");
    expect(response.headers.get("x-engram-memories-used")).toBe("2");
  });

  it("X-Service-Agent on the plain form is the same boundary; without an agent the whole organization", async () => {
    const { token } = await tenantWithMemories(server, memories);
    upstream.behave(answer(["ok"]));
    await openai(server, token, { headers: { "X-Service-Agent": "support" } }).chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "release?" }] });
    const block = injectedBlock(upstream.last().body.messages)!;
    expect(block).toContain("Zendesk");
    expect(block).not.toContain("Triage labels");

    const whole = await openai(server, token).chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "release?" }] }).withResponse();
    expect(whole.response.headers.get("x-engram-memories-used")).toBe("3");
  });

  it("agent-bound tokens work only on their agents", async () => {
    const { orgId } = await tenantWithMemories(server, memories);
    const bound = await server.newToken(orgId, { scopes: ["inference:chat"], agents: ["triage"] });
    upstream.behave(answer(["ok"]));
    const ok = await openai(server, bound, { agent: "triage" }).chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "release?" }] }).withResponse();
    expect(ok.response.headers.get("x-engram-memories-used")).toBe("2");
    await expect(openai(server, bound, { agent: "support" }).chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "release?" }] })).rejects.toMatchObject({
      status: 403,
      error: { code: "agent_not_allowed", type: "authorization_error" },
    });
    await expect(openai(server, bound).chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "release?" }] })).rejects.toMatchObject({ status: 403 });
  });
});

describe("models and health", () => {
  it("lists the one advertised model with its 8,192-token context", async () => {
    const { token } = await tenantWithMemories(server);
    const models = await openai(server, token).models.list();
    expect(models.data).toEqual([{ id: MODEL, object: "model", created: expect.any(Number), owned_by: "engram", context_length: 8192 }]);
  });

  it("reports liveness, the database and the upstream without a token", async () => {
    const ok = await fetch(`${server.url}/v1/health`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: "ok", database: "ok", upstream: "ok", model: MODEL, version: "3.12.3" });

    upstream.setModelsStatus(503);
    try {
      const degraded = await fetch(`${server.url}/v1/health`);
      expect(degraded.status).toBe(200);
      expect(await degraded.json()).toMatchObject({ status: "degraded", database: "ok", upstream: "unavailable" });
    } finally {
      upstream.setModelsStatus(200);
    }
  });
});
