import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answer, type ChatUpstream, type SessionClient, startTestServer, type TestServer } from "@engram/test-support";
import { chatRequest, jsonOf, MODEL, openai, sseEvents, startGateway, tenantWithMemories } from "./support";

/**
 * A chat request naming an assistant (X-Engram-Assistant) is served with the capabilities the assistant has at
 * that moment: a change through the /api routes applies to the next request, with no restart.
 */

const memories = [
  { text: "Payments-api deploys with make release after CI is green.", subject: "payments-api" },
  { text: "Payments-api deploys are frozen on Fridays after noon.", subject: "payments-api" },
  { text: "A failed payments-api deploy is rolled back with make rollback.", subject: "payments-api" },
];
const QUESTION = "How do payments-api deploys work?";

/** An organization with memories, a chat token, its owner signed in, and one org_shared assistant. */
async function assistantTenant(server: TestServer, plan: "free" | "boost" = "boost") {
  const { orgId, token, ids } = await tenantWithMemories(server, memories);
  await server.db.organization.update({ where: { id: orgId }, data: { plan } });
  const owner = await server.signedIn(orgId, "owner");
  const created = await owner.post("/api/assistants", { name: "Deploy Desk", type: "org_shared" });
  expect(created.status).toBe(201);
  return { orgId, token, ids, owner, assistantId: created.body.assistant._id as string };
}

async function setCapabilities(owner: SessionClient, assistantId: string, body: { capabilities: string[]; capabilityConfigs?: object }) {
  const res = await owner.patch(`/api/assistants/${assistantId}/capabilities`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const SEARCH_2 = { capabilities: ["search_memory"], capabilityConfigs: { search_memory: { maxMemories: 2 } } };
const SEARCH_2_CITED = { capabilities: ["search_memory", "cite_sources"], capabilityConfigs: { search_memory: { maxMemories: 2 } } };

function ask(server: TestServer, token: string, assistantId: string) {
  return openai(server, token, { headers: { "X-Engram-Assistant": assistantId } })
    .chat.completions.create({ model: MODEL, messages: [{ role: "user", content: QUESTION }] })
    .withResponse();
}

describe("with the embedded responder", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: "off" });
  });
  afterAll(() => server?.stop());

  it("serves the assistant's capabilities as they are at each request", async () => {
    const { token, ids, owner, assistantId } = await assistantTenant(server);

    // answer_questions alone: no memory is searched.
    const plain = await ask(server, token, assistantId);
    expect(plain.response.headers.get("x-engram-memories-used")).toBe("0");
    expect(plain.response.headers.get("x-engram-capabilities")).toBe("answer_questions");
    expect(plain.data.choices[0]!.message.content).toMatch(/^Organization memory was not searched for this request/);

    // Without the header the same question is grounded in memory as always (3 memories stored).
    const withoutHeader = await openai(server, token).chat.completions.create({ model: MODEL, messages: [{ role: "user", content: QUESTION }] }).withResponse();
    expect(withoutHeader.response.headers.get("x-engram-memories-used")).toBe("3");
    expect(withoutHeader.response.headers.get("x-engram-capabilities")).toBeNull();

    // search_memory with maxMemories 2: at most two, and no citations without cite_sources.
    await setCapabilities(owner, assistantId, SEARCH_2);
    const searched = await ask(server, token, assistantId);
    expect(searched.response.headers.get("x-engram-memories-used")).toBe("2");
    expect(searched.response.headers.get("x-engram-capabilities")).toBe("answer_questions,search_memory");
    const uncited = searched.data.choices[0]!.message.content!;
    expect(uncited).toMatch(/^From the organization's memory \(2 stored memories/);
    expect(uncited).not.toContain("Sources:");
    expect(uncited).not.toMatch(/\[\d\]/);
    for (const id of ids) expect(uncited).not.toContain(id);

    // cite_sources on: marked and listed.
    await setCapabilities(owner, assistantId, SEARCH_2_CITED);
    const cited = await ask(server, token, assistantId);
    expect(cited.response.headers.get("x-engram-capabilities")).toBe("answer_questions,search_memory,cite_sources");
    const content = cited.data.choices[0]!.message.content!;
    expect(content).toContain("Sources:");
    expect(content).toContain("[1]");
    expect(ids.filter((id) => content.includes(id))).toHaveLength(2);

    // And off again.
    await setCapabilities(owner, assistantId, SEARCH_2);
    expect((await ask(server, token, assistantId)).data.choices[0]!.message.content).not.toContain("Sources:");

    // maxMemories is the limit, not a fixed count.
    await setCapabilities(owner, assistantId, { capabilities: ["search_memory"], capabilityConfigs: { search_memory: { maxMemories: 1 } } });
    expect((await ask(server, token, assistantId)).response.headers.get("x-engram-memories-used")).toBe("1");
  });

  it("streams with the header too, the same answer as the whole one", async () => {
    const { token, owner, assistantId } = await assistantTenant(server);
    await setCapabilities(owner, assistantId, SEARCH_2_CITED);
    const client = openai(server, token, { headers: { "X-Engram-Assistant": assistantId } });
    const whole = (await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: QUESTION }] })).choices[0]!.message.content;
    const { data: stream, response } = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: QUESTION }], stream: true }).withResponse();
    expect(response.headers.get("x-engram-capabilities")).toBe("answer_questions,search_memory,cite_sources");
    expect(response.headers.get("x-engram-memories-used")).toBe("2");
    let streamed = "";
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
    expect(streamed).toBe(whole);
    expect(streamed).toContain("Sources:");
  });

  it("answers 404 assistant_not_found for an unknown id, another organization's, or a deleted one, streaming or not", async () => {
    const mine = await assistantTenant(server);
    const theirs = await assistantTenant(server);
    const deleted = await mine.owner.post("/api/assistants", { name: "Short-lived", type: "org_shared" });
    expect((await mine.owner.delete(`/api/assistants/${deleted.body.assistant._id}`)).status).toBe(200);

    for (const assistantId of [`asst_${"0".repeat(32)}`, theirs.assistantId, deleted.body.assistant._id]) {
      for (const stream of [false, true]) {
        const res = await chatRequest(server, mine.token, { model: MODEL, messages: [{ role: "user", content: QUESTION }], stream }, { headers: { "X-Engram-Assistant": assistantId } });
        expect(res.status).toBe(404);
        const body = await jsonOf(res);
        expect(body).toEqual({ error: { message: expect.any(String), type: "invalid_request_error", code: "assistant_not_found", param: "X-Engram-Assistant" } });
        expect(res.headers.get("x-engram-capabilities")).toBeNull();
      }
    }
    // The other organization's assistant still answers for its own token.
    expect((await ask(server, theirs.token, theirs.assistantId)).response.headers.get("x-engram-capabilities")).toBe("answer_questions");
  });

  it("refuses an empty or over-long assistant header as a bad parameter", async () => {
    const { token } = await assistantTenant(server);
    for (const value of ["", "a".repeat(101)]) {
      const res = await chatRequest(server, token, { model: MODEL, messages: [{ role: "user", content: QUESTION }] }, { headers: { "X-Engram-Assistant": value } });
      expect(res.status).toBe(400);
      expect((await jsonOf(res)).error.param).toBe("X-Engram-Assistant");
    }
  });
});

describe("with an upstream model", () => {
  let server: TestServer;
  let upstream: ChatUpstream;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server, upstream, stop } = await startGateway());
  });
  afterAll(() => stop?.());

  const systemMessages = () => upstream.last().body.messages.filter((m: { role: string }) => m.role === "system") as Array<{ content: string }>;
  const memoryBlock = () => systemMessages().find((m) => m.content.startsWith("What the organization knows"))?.content;

  it("the first system message names the assistant and its enabled capabilities; memory only with search_memory", async () => {
    const { token, owner, assistantId } = await assistantTenant(server);
    upstream.behave(answer(["Deploys", " go out with make release."]));
    const client = openai(server, token, { headers: { "X-Engram-Assistant": assistantId } });
    const messages = [
      { role: "system" as const, content: "You help the payments team." },
      { role: "user" as const, content: QUESTION },
    ];

    const plain = await client.chat.completions.create({ model: MODEL, messages }).withResponse();
    expect(plain.response.headers.get("x-engram-memories-used")).toBe("0");
    const sent = upstream.last().body.messages as Array<{ role: string; content: string }>;
    expect(sent[0]!.role).toBe("system");
    expect(sent[0]!.content).toContain('"Deploy Desk"');
    expect(sent[0]!.content).toContain("Your enabled capabilities: Answer questions.");
    expect(sent.slice(1)).toEqual(messages);
    expect(memoryBlock()).toBeUndefined();

    await setCapabilities(owner, assistantId, { ...SEARCH_2, capabilities: ["search_memory", "explain_code"] });
    const grounded = await client.chat.completions.create({ model: MODEL, messages }).withResponse();
    expect(grounded.response.headers.get("x-engram-memories-used")).toBe("2");
    expect(grounded.response.headers.get("x-engram-capabilities")).toBe("answer_questions,search_memory,explain_code");
    const first = upstream.last().body.messages[0] as { role: string; content: string };
    expect(first.role).toBe("system");
    expect(first.content).toContain('"Deploy Desk"');
    expect(first.content).toContain("Your enabled capabilities: Answer questions, Search memory, Explain code.");
    const block = memoryBlock()!;
    expect(memories.filter((memory) => block.includes(memory.text))).toHaveLength(2);

    // A rename applies to the next request as well.
    expect((await owner.patch(`/api/assistants/${assistantId}`, { name: "Release Desk" })).status).toBe(200);
    await client.chat.completions.create({ model: MODEL, messages });
    expect(upstream.last().body.messages[0].content).toContain('"Release Desk"');
  });

  it("streams with the assistant's instructions sent upstream", async () => {
    const { token, assistantId } = await assistantTenant(server);
    upstream.behave(answer(["a", "b"]));
    const res = await chatRequest(server, token, { model: MODEL, messages: [{ role: "user", content: QUESTION }], stream: true }, { headers: { "X-Engram-Assistant": assistantId } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-engram-capabilities")).toBe("answer_questions");
    const events = await sseEvents(res);
    expect(events.at(-1)).toBe("[DONE]");
    expect(upstream.last().body.stream).toBe(true);
    expect(upstream.last().body.messages[0].content).toContain('"Deploy Desk"');
    expect(memoryBlock()).toBeUndefined();
  });
});
