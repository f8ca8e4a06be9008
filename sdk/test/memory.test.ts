import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@engram/test-support";
import { ConflictError, Engram, NotFoundError } from "../src";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

const clientFor = async () => new Engram({ baseUrl: server.url, token: (await server.newTenant()).token });

describe("memory against a real server", () => {
  it("remembers, recalls with context, reinforces, suppresses, restores, inspects and tombstones", async () => {
    const engram = await clientFor();
    const memory = await engram.memory.remember({ text: "Refunds over $500 need a second approver.", subject: "refunds", memoryKind: "procedure" });
    expect(memory).toMatchObject({ state: "durable", subject: "refunds", memoryKind: "procedure", agent: null });

    const recalled = await engram.memory.recall({ query: "who approves refunds", includeContext: true });
    expect(recalled.memories.map((m) => m.id)).toEqual([memory.id]);
    expect(recalled.context?.systemBlock).toContain("Refunds over $500 need a second approver.");
    expect((await engram.memory.search({ query: "refunds" })).memories.map((m) => m.id)).toEqual([memory.id]);
    expect((await engram.memory.retrieve({ query: "refunds", limit: 1 })).context).toBeUndefined();

    expect((await engram.memory.reinforce(memory.id, { reason: "helped", actor: "alice" })).reinforcementCount).toBe(1);
    expect((await engram.memory.suppress(memory.id)).state).toBe("suppressed");
    expect((await engram.memory.recall({ query: "refunds" })).memories).toEqual([]);
    expect((await engram.memory.restore(memory.id)).state).toBe("durable");
    expect((await engram.memory.tombstone(memory.id)).state).toBe("tombstoned");
    expect((await engram.memory.delete(memory.id)).state).toBe("tombstoned");

    const provenance = await engram.memory.provenance(memory.id);
    expect(provenance.history.map((h) => h.action)).toEqual(["created", "reinforced", "suppressed", "restored", "tombstoned"]);
    expect(provenance.history[1]).toMatchObject({ actor: "alice", reason: "helped" });
    expect(provenance.source.idempotencyKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it("reads a memory's history a page at a time, and iterates every page with historyPages", async () => {
    const engram = await clientFor();
    const memory = await engram.memory.remember({ text: "The on-call rotation changes on Mondays." });
    for (let i = 0; i < 4; i++) await engram.memory.reinforce(memory.id, { reason: `use ${i}` });
    const first = await engram.memory.provenance(memory.id, { historyLimit: 2 });
    expect(first.history.map((entry) => entry.action)).toEqual(["created", "reinforced"]);
    expect(first.nextHistoryCursor).toEqual(expect.any(String));
    const rest = await engram.memory.provenance(memory.id, { historyCursor: first.nextHistoryCursor! });
    expect(rest.history.map((entry) => entry.reason)).toEqual(["use 1", "use 2", "use 3"]);
    expect(rest.nextHistoryCursor).toBeNull();

    const pages: string[][] = [];
    for await (const page of engram.memory.historyPages(memory.id, { historyLimit: 2 })) pages.push(page.map((entry) => entry.reason ?? entry.action));
    expect(pages).toEqual([["created", "use 0"], ["use 1", "use 2"], ["use 3"]]);
  });

  it("encodes with the defaults the contract declares", async () => {
    const engram = await clientFor();
    expect(await engram.memory.encode({ text: "  Staging resets every Sunday.  " })).toMatchObject({ text: "Staging resets every Sunday.", memoryKind: "fact", confidence: 0.8, subject: null });
  });

  it("uses the agent path forms for an agent-bound client, set in the options or with agent()", async () => {
    const { token } = await server.newTenant();
    const engram = new Engram({ baseUrl: server.url, token });
    const triage = new Engram({ baseUrl: server.url, token, agent: "triage" });
    const own = await triage.memory.encode({ text: "Triage pages the owner of a P1 at once." });
    const shared = await engram.memory.encode({ text: "The owner of a service is in its catalog entry." });
    expect(own.agent).toBe("triage");

    expect((await triage.memory.recall({ query: "owner" })).memories.map((m) => m.id).sort()).toEqual([own.id, shared.id].sort());
    const support = engram.agent("support");
    expect((await support.memory.recall({ query: "owner" })).memories.map((m) => m.id)).toEqual([shared.id]);
    await expect(support.memory.provenance(own.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(support.memory.reinforce(own.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(support.memory.delete(own.id)).rejects.toBeInstanceOf(NotFoundError);

    expect((await engram.agent("triage").memory.suppress(own.id)).state).toBe("suppressed");
    expect((await triage.memory.restore(own.id)).state).toBe("durable");
    expect((await triage.memory.reinforce(own.id)).reinforcementCount).toBe(1);
    expect((await triage.memory.provenance(own.id)).memory.id).toBe(own.id);
    expect((await triage.memory.search({ query: "P1" })).memories.map((m) => m.id)).toEqual([own.id]);
    expect((await triage.memory.retrieve({ query: "P1" })).memories.map((m) => m.id)).toEqual([own.id]);
    expect((await triage.memory.tombstone(own.id)).state).toBe("tombstoned");
  });

  it("replays a write sent again with the same idempotency key, and refuses a different one", async () => {
    const engram = await clientFor();
    const first = await engram.memory.encode({ text: "Once only." }, { idempotencyKey: "sdk-1" });
    const again = await engram.memory.encode({ text: "Once only." }, { idempotencyKey: "sdk-1" }).withResponse();
    expect(again.data.id).toBe(first.id);
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    const conflict = await engram.memory.encode({ text: "Something else." }, { idempotencyKey: "sdk-1" }).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict).toMatchObject({ status: 409, code: "idempotency_key_reused", type: "invalid_request_error" });
  });

  it("gives every encode its own generated idempotency key", async () => {
    const engram = await clientFor();
    const one = await engram.memory.encode({ text: "Same text." });
    const two = await engram.memory.encode({ text: "Same text." });
    expect(two.id).not.toBe(one.id);
    const keys = await Promise.all([one, two].map(async (m) => (await engram.memory.provenance(m.id)).source.idempotencyKey));
    expect(new Set(keys).size).toBe(2);
  });

  it("exposes status, headers and request id with withResponse(), and passes extra headers", async () => {
    const engram = await clientFor();
    const { data, response } = await engram.memory.recall({ query: "anything" }, { headers: { "X-Request-Id": "req_sdk_trace_1" } }).withResponse();
    expect(data).toEqual({ memories: [] });
    expect(response.status).toBe(200);
    expect(response.requestId).toBe("req_sdk_trace_1");
    expect(response.headers.get("content-type")).toContain("application/json");
    const created = await engram.memory.remember({ text: "Headers are exposed." }).withResponse();
    expect(created.response.status).toBe(201);
    expect(created.data.text).toBe("Headers are exposed.");
  });

  it("sends every request through the fetch it was given", async () => {
    const seen: string[] = [];
    const tracing: typeof fetch = (input, init) => {
      seen.push(`${init?.method} ${new URL(String(input)).pathname}`);
      return fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), "x-request-id": "req_traced" } });
    };
    const engram = new Engram({ baseUrl: server.url, token: (await server.newTenant()).token, fetch: tracing });
    const memory = await engram.memory.encode({ text: "Tracing wraps fetch." });
    const { response } = await engram.memory.delete(memory.id).withResponse();
    expect(seen).toEqual(["POST /v1/memory", `DELETE /v1/memory/${memory.id}`]);
    expect(response.requestId).toBe("req_traced");
  });

  it("reads its token from ENGRAM_TOKEN, else ACM_TOKEN, and its address from ENGRAM_BASE_URL", async () => {
    const { token } = await server.newTenant();
    const saved = { ...process.env };
    try {
      process.env.ENGRAM_BASE_URL = server.url;
      process.env.ACM_TOKEN = token;
      expect((await new Engram().memory.recall({ query: "anything" })).memories).toEqual([]);
      process.env.ENGRAM_TOKEN = token;
      process.env.ACM_TOKEN = "acm_wrong";
      expect((await new Engram().memory.recall({ query: "anything" })).memories).toEqual([]);
      delete process.env.ENGRAM_TOKEN;
      delete process.env.ACM_TOKEN;
      expect(() => new Engram()).toThrow(/needs a token/);
    } finally {
      process.env = saved;
    }
  });
});
