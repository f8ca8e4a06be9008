import { DEFAULT_MODEL_ID, memoryScopes } from "@engram/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answer, type ChatUpstream, errorBody, failMidStream, startChatUpstream, startScriptedProxy, startTestServer, type TestServer } from "@engram/test-support";
import { APIConnectionError, APIError, APIUserAbortError, Engram, InvalidRequestError, NotFoundError, PermissionDeniedError, Stream, type ChatCompletionChunk } from "../src";

const model = DEFAULT_MODEL_ID;
const question = (content: string) => ({ model, messages: [{ role: "user" as const, content }] });

/** An organization whose token may chat, with its client. */
async function chatTenant(server: TestServer, options: { baseUrl?: string; agent?: string; maxRetries?: number } = {}) {
  const orgId = await server.newOrg();
  const token = await server.newToken(orgId, { scopes: [...memoryScopes, "inference:chat"] });
  return { orgId, token, engram: new Engram({ baseUrl: options.baseUrl ?? server.url, token, agent: options.agent, maxRetries: options.maxRetries }) };
}

async function contentOf(stream: Stream<ChatCompletionChunk>): Promise<{ content: string; chunks: ChatCompletionChunk[] }> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return { content: chunks.map((c) => c.choices[0]?.delta.content ?? "").join(""), chunks };
}

describe("chat, models and health against the real gateway (embedded responder)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it("answers from memory, plainly and streamed alike", async () => {
    const { engram } = await chatTenant(server);
    await engram.memory.remember({ text: "Payments deploys with make release after CI is green.", subject: "payments" });

    const { data: completion, response } = await engram.chat.completions.create(question("How does payments deploy?")).withResponse();
    expect(completion).toMatchObject({ object: "chat.completion", model, choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant" } }] });
    expect(completion.choices[0]!.message.content).toContain("make release");
    expect(completion.usage.total_tokens).toBeGreaterThan(0);
    expect(response.headers.get("x-engram-memories-used")).toBe("1");

    const stream = await engram.chat.completions.create({ ...question("How does payments deploy?"), stream: true });
    expect(stream).toBeInstanceOf(Stream);
    const { content, chunks } = await contentOf(stream);
    expect(chunks.every((chunk) => chunk.object === "chat.completion.chunk")).toBe(true);
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    expect(content).toBe(completion.choices[0]!.message.content);
    await expect(contentOf(stream)).rejects.toThrow(/already been read/);
  });

  it("keeps an agent's chat inside its boundary, and can leave memory out", async () => {
    const { token, engram } = await chatTenant(server);
    await engram.agent("billing-bot").memory.remember({ text: "Invoices go out on the first working day." });
    const billing = new Engram({ baseUrl: server.url, token, agent: "billing-bot" });
    const inside = await billing.chat.completions.create(question("When do invoices go out?")).withResponse();
    expect(inside.data.choices[0]!.message.content).toContain("first working day");
    expect(inside.response.headers.get("x-engram-memories-used")).toBe("1");

    const outside = await engram.agent("support-bot").chat.completions.create(question("When do invoices go out?")).withResponse();
    expect(outside.response.headers.get("x-engram-memories-used")).toBe("0");
    const withoutMemory = await billing.chat.completions.create(question("When do invoices go out?"), { memory: false }).withResponse();
    expect(withoutMemory.response.headers.get("x-engram-memories-used")).toBe("0");
  });

  it("answers as an assistant, with the capabilities enabled for it at the time", async () => {
    const { orgId, engram } = await chatTenant(server);
    await engram.memory.remember({ text: "Payments deploys with make release after CI is green.", subject: "payments" });
    const assistant = await server.services.assistants.create(orgId, { name: "Helpdesk", type: "org_shared" }, "cli");
    const ask = () => engram.chat.completions.create(question("How does payments deploy?"), { assistant: assistant.id }).withResponse();

    const plain = await ask();
    expect(plain.response.headers.get("x-engram-capabilities")).toBe("answer_questions");
    expect(plain.response.headers.get("x-engram-memories-used")).toBe("0");

    await server.services.assistants.updateCapabilities(
      orgId,
      assistant.id,
      { capabilities: ["search_memory", "cite_sources"], capabilityConfigs: { search_memory: { maxMemories: 3 } } },
      { actor: "cli", tier: "free" },
    );
    const grounded = await ask();
    expect(grounded.response.headers.get("x-engram-capabilities")).toBe("answer_questions,search_memory,cite_sources");
    expect(grounded.data.choices[0]!.message.content).toContain("make release");
    expect(grounded.data.choices[0]!.message.content).toContain("Sources:");

    const missing = await engram.chat.completions.create(question("hi"), { assistant: "asst_missing" }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: "assistant_not_found" });
  });

  it("throws the gateway's errors as their classes", async () => {
    const { orgId, engram } = await chatTenant(server);
    const unknownModel = await engram.chat.completions.create({ ...question("hi"), model: "gpt-nope" }).catch((e: unknown) => e);
    expect(unknownModel).toBeInstanceOf(NotFoundError);
    expect(unknownModel).toMatchObject({ status: 404, code: "model_not_found" });
    await expect(engram.chat.completions.create({ ...question("hi"), temperature: 3 })).rejects.toBeInstanceOf(InvalidRequestError);
    const memoryOnly = new Engram({ baseUrl: server.url, token: await server.newToken(orgId) });
    await expect(memoryOnly.chat.completions.create({ ...question("hi"), stream: true })).rejects.toBeInstanceOf(PermissionDeniedError);
  });

  it("lists the advertised model and checks health", async () => {
    const { engram } = await chatTenant(server);
    const models = await engram.models.list();
    expect(models).toEqual({ object: "list", data: [expect.objectContaining({ id: model, object: "model", context_length: 8192 })] });
    const health = await new Engram({ baseUrl: server.url, token: "acm_not_needed" }).health();
    expect(health).toMatchObject({ status: "ok", database: "ok", upstream: "embedded", model });
  });
});

describe("streaming against the gateway with a real upstream model server", () => {
  let server: TestServer;
  let upstream: ChatUpstream;
  beforeAll(async () => {
    upstream = await startChatUpstream();
    server = await startTestServer({ inference: { modelId: model, upstream: { baseUrl: upstream.baseUrl, apiKey: null, model: "tiny-upstream", timeoutMs: 10_000 } }, rateLimits: "off" });
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
  });

  it("closes the connection when the loop breaks, and the gateway stops the model", async () => {
    const { engram } = await chatTenant(server);
    upstream.behave(answer(Array.from({ length: 200 }, (_, i) => `word${i} `), { delayMs: 10 }));
    const stream = await engram.chat.completions.create({ ...question("Tell me a long story"), stream: true });
    const seen: string[] = [];
    for await (const chunk of stream) {
      const piece = chunk.choices[0]?.delta.content;
      if (piece) seen.push(piece);
      if (seen.length === 3) break;
    }
    expect(seen).toEqual(["word0 ", "word1 ", "word2 "]);
    expect(stream.controller.signal.aborted).toBe(true);
    const request = upstream.last();
    await request.closed;
    expect(request.aborted).toBe(true);
  });

  it("stops a stream when the caller's signal aborts it", async () => {
    const { engram } = await chatTenant(server);
    upstream.behave(answer(Array.from({ length: 200 }, () => "more "), { delayMs: 10 }));
    const controller = new AbortController();
    const stream = await engram.chat.completions.create({ ...question("Go on"), stream: true }, { signal: controller.signal });
    const failure = await (async () => {
      for await (const chunk of stream) if (chunk.choices[0]?.delta.content) controller.abort();
    })().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(APIUserAbortError);
    const request = upstream.last();
    await request.closed;
    expect(request.aborted).toBe(true);
  });

  it("retries a stream that failed before its first byte, never one that had started", async () => {
    const proxy = await startScriptedProxy(server.url);
    try {
      const { engram } = await chatTenant(server, { baseUrl: proxy.url });
      upstream.behave(answer(["Hello", " there."]));
      proxy.script({ status: 503, body: errorBody("model_error", "upstream_unavailable", "The model is busy") });
      expect((await contentOf(await engram.chat.completions.create({ ...question("hi"), stream: true }))).content).toBe("Hello there.");
      expect(proxy.requests).toHaveLength(2);

      proxy.requests.length = 0;
      upstream.behave(failMidStream(["Half an"], "the model crashed"));
      const seen: string[] = [];
      const failure = await (async () => {
        for await (const chunk of await engram.chat.completions.create({ ...question("hi"), stream: true })) seen.push(chunk.choices[0]?.delta.content ?? "");
      })().catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(APIError);
      expect(seen.join("")).toBe("Half an");
      expect(proxy.requests).toHaveLength(1);

      proxy.requests.length = 0;
      upstream.behave(answer(Array.from({ length: 100 }, () => "more "), { delayMs: 20 }));
      const cut = await (async () => {
        for await (const chunk of await engram.chat.completions.create({ ...question("hi"), stream: true })) {
          if (chunk.choices[0]?.delta.content) await proxy.close();
        }
      })().catch((e: unknown) => e);
      expect(cut).toBeInstanceOf(APIConnectionError);
      expect(proxy.requests).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});
