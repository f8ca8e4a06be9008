import { ZErrorBody } from "@engram/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, databaseUnderTest, rawRequest, startTestServer, type TestServer } from "@engram/test-support";
import { MAX_RECORD_BODY_BYTES } from "../src/http/body";
import { escapedJsonString } from "./hostile/raw-http";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

async function tenantClient() {
  const { orgId, token } = await server.newTenant();
  return { orgId, token, api: apiClient(server.url, token) };
}

describe("encode", () => {
  it("stores a durable memory with defaults and answers 201", async () => {
    const { api } = await tenantClient();
    const res = await api.memory.encode({ body: { text: "  Deploys freeze on Fridays.  " } });
    expect(res.status).toBe(201);
    if (res.status !== 201) return;
    expect(res.body.memory).toMatchObject({
      text: "Deploys freeze on Fridays.",
      subject: null,
      memoryKind: "fact",
      confidence: 0.8,
      state: "durable",
      agent: null,
      environment: "production",
      source: "api",
      reinforcementCount: 0,
      lastReinforcedAt: null,
    });
    expect(res.body.memory.id).toMatch(/^mem_/);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("keeps subject, kind and confidence as given", async () => {
    const { api } = await tenantClient();
    const res = await api.memory.encode({
      body: { text: "Prefer squash merges.", subject: "git", memoryKind: "preference", confidence: 0.35 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ memory: { subject: "git", memoryKind: "preference", confidence: 0.35 } });
  });

  it("accepts the longest memory a client can send, every character escaped, within the memory routes' body limit", async () => {
    const { token } = await tenantClient();
    const body = `{"text":${escapedJsonString("é".repeat(8000))},"subject":${escapedJsonString("s".repeat(200))},"memoryKind":"decision","confidence":0.5}`;
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_RECORD_BODY_BYTES);
    const res = await rawRequest(server.url, "/v1/memory", { token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.memory).toMatchObject({ text: "é".repeat(8000), subject: "s".repeat(200) });
  });
});

describe("retrieve and its aliases", () => {
  it("finds memories by their words and subject, best match first, within limit", async () => {
    const { api } = await tenantClient();
    await api.memory.encode({ body: { text: "Payments deploy with make release after CI is green.", subject: "payments" } });
    await api.memory.encode({ body: { text: "The billing team owns invoices.", subject: "billing" } });
    await api.memory.encode({ body: { text: "Payments retries are capped at three.", subject: "payments" } });
    await api.memory.encode({ body: { text: "Lunch is at noon." } });

    for (const route of ["retrieve", "recall", "search"] as const) {
      const res = await api.memory[route]({ body: { query: "how do payments deploy?" } });
      expect(res.status).toBe(200);
      if (res.status !== 200) return;
      expect(res.body.memories.map((m) => m.text)).toEqual([
        "Payments deploy with make release after CI is green.",
        "Payments retries are capped at three.",
      ]);
      expect(res.body.memories[0]!.score).toBeGreaterThan(res.body.memories[1]!.score);
      expect(res.body.context).toBeUndefined();
    }
    const limited = await api.memory.retrieve({ body: { query: "payments", limit: 1 } });
    expect(limited.status === 200 && limited.body.memories).toHaveLength(1);
  });

  it("returns each memory whole, as encode and reinforce left it, with its score", async () => {
    const { api } = await tenantClient();
    const encoded = await api.memory.encode({ body: { text: "Ledger snapshots run hourly.", subject: "ledger", memoryKind: "fact", confidence: 0.8 } });
    if (encoded.status !== 201) throw new Error(`encode failed: ${encoded.status}`);
    const reinforced = await api.memory.reinforce({ params: { id: encoded.body.memory.id }, body: { reason: "useful" } });
    if (reinforced.status !== 200) throw new Error(`reinforce failed: ${reinforced.status}`);

    const found = await api.memory.retrieve({ body: { query: "ledger snapshots" } });
    if (found.status !== 200) throw new Error(`retrieve failed: ${found.status}`);
    const { score, ...memory } = found.body.memories[0]!;
    expect(memory).toEqual(reinforced.body.memory);
    expect(memory).toMatchObject({ reinforcementCount: 1, state: "durable", confidence: 0.8 });
    expect(score).toBeGreaterThan(0);
  });

  it("matches word forms and identifiers, not fragments of other words", async () => {
    const { api } = await tenantClient();
    await api.memory.encode({ body: { text: "Deploying payments-api needs INC-42 closed first.", subject: "releases" } });
    await api.memory.encode({ body: { text: "The redeployment tool is deprecated." } });
    for (const query of ["deploys", "payments api", "inc-42", "INC 42", "release"]) {
      const res = await api.memory.retrieve({ body: { query } });
      expect(res.status === 200 && res.body.memories.map((m) => m.text), query).toEqual(["Deploying payments-api needs INC-42 closed first."]);
    }
  });

  it("finds a memory by a word first seen after it was searched for, and despite unknown query words", async () => {
    const { api } = await tenantClient();
    expect((await api.memory.retrieve({ body: { query: "zeppelin hangar" } })).body).toEqual({ memories: [] });
    await api.memory.encode({ body: { text: "The zeppelin hangar key is in the facilities safe." } });
    const found = await api.memory.retrieve({ body: { query: "zeppelin hangar" } });
    expect(found.status === 200 && found.body.memories).toHaveLength(1);
    const mixed = await api.memory.retrieve({ body: { query: "quokka zeppelin" } });
    expect(mixed.status === 200 && mixed.body.memories).toHaveLength(1);
  });

  it("lifts the memory that shares the best match's telling words (pseudo-relevance feedback)", async () => {
    const { api } = await tenantClient();
    const oldWay = "Access to internal tools goes through the OpenVPN server.";
    const newWay = "OpenVPN was replaced by Tailscale: install the client to connect.";
    // Newer and shorter, it matches `connect` better than the memory about Tailscale does.
    const projector = "Connect the projector with the HDMI cable.";
    for (const text of [oldWay, newWay, projector]) await api.memory.encode({ body: { text } });
    const res = await api.memory.retrieve({ body: { query: "how do I connect to internal tools?" } });
    expect(res.status === 200 && res.body.memories.map((m) => m.text)).toEqual([oldWay, newWay, projector]);
  });

  it("returns nothing for a query that matches nothing", async () => {
    const { api } = await tenantClient();
    await api.memory.encode({ body: { text: "Payments deploy on Tuesdays." } });
    const res = await api.memory.retrieve({ body: { query: "kubernetes autoscaling" } });
    expect(res.body).toEqual({ memories: [] });
  });

  it("assembles a context block in full and compact modes", async () => {
    const { api } = await tenantClient();
    await api.memory.encode({ body: { text: "Incidents are declared in #incidents.", subject: "incident process", memoryKind: "procedure", confidence: 0.9 } });

    const full = await api.memory.retrieve({ body: { query: "where are incidents declared", includeContext: true } });
    expect(full.status).toBe(200);
    if (full.status !== 200) return;
    expect(full.body.context?.mode).toBe("full");
    expect(full.body.context?.systemBlock).toContain("[procedure about incident process, today, confidence 0.90] Incidents are declared in #incidents.");
    expect(full.body.context?.stats).toMatchObject({ candidates: 1, returned: 1 });
    expect(full.body.context?.stats.tokens).toBeGreaterThan(10);

    const compact = await api.memory.recall({ body: { query: "incidents", includeContext: true, contextMode: "compact" } });
    expect(compact.status === 200 && compact.body.context?.systemBlock).toContain("- incident process: Incidents are declared in #incidents.");

    await api.memory.encode({ body: { text: "Incidents are declared in #incidents!", subject: "incident process", memoryKind: "procedure" } });
    const merged = await api.memory.retrieve({ body: { query: "where are incidents declared", includeContext: true } });
    expect(merged.status === 200 && merged.body.memories).toHaveLength(2);
    expect(merged.status === 200 && merged.body.context?.stats).toMatchObject({ returned: 2, merged: 1 });
    expect(merged.status === 200 && merged.body.context?.systemBlock.split("\n")).toHaveLength(2);

    const none = await api.memory.search({ body: { query: "vacation policy", includeContext: true } });
    expect(none.status === 200 && none.body.context?.systemBlock).toBe("The organization has no stored memory relevant to this request.");
  });
});

describe("control, provenance and tombstone", () => {
  it("reinforce counts uses without changing state and lifts a memory above an equal one", async () => {
    const { api } = await tenantClient();
    const first = await api.memory.encode({ body: { text: "Staging resets nightly." } });
    await api.memory.encode({ body: { text: "Staging resets nightly!" } });
    const id = first.status === 201 ? first.body.memory.id : "";

    const res = await api.memory.reinforce({ params: { id }, body: { reason: "answered a question", actor: "helper-bot" } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ memory: { id, state: "durable", reinforcementCount: 1 } });
    expect(res.status === 200 && res.body.memory.lastReinforcedAt).toBeTruthy();

    const ranked = await api.memory.retrieve({ body: { query: "staging resets" } });
    expect(ranked.status === 200 && ranked.body.memories[0]?.id).toBe(id);
  });

  it("lets a stale memory sink below an equally relevant fresh one", async () => {
    const { api } = await tenantClient();
    const stale = await api.memory.encode({ body: { text: "The build cache lives in the artifacts bucket." } });
    const fresh = await api.memory.encode({ body: { text: "The build cache lives in the artifacts bucket!" } });
    const staleId = (stale.body as { memory: { id: string } }).memory.id;
    const yearAgo = new Date(Date.now() - 365 * 86_400_000);
    await server.db.memory.update({ where: { id: staleId }, data: { createdAt: yearAgo, recentUses: JSON.stringify([yearAgo]) } });
    // Reinforced once long ago it still sinks: recency matters, not only frequency.
    const ranked = await api.memory.retrieve({ body: { query: "build cache bucket" } });
    expect(ranked.status === 200 && ranked.body.memories.map((m) => m.id)).toEqual([(fresh.body as { memory: { id: string } }).memory.id, staleId]);
  });

  it("suppress hides, restore brings back, and invalid transitions answer 409", async () => {
    const { api } = await tenantClient();
    const created = await api.memory.encode({ body: { text: "The VPN endpoint is vpn.example.com." } });
    const id = created.status === 201 ? created.body.memory.id : "";

    const suppressed = await api.memory.suppress({ params: { id }, body: { reason: "stale" } });
    expect(suppressed.body).toMatchObject({ memory: { state: "suppressed" } });
    expect((await api.memory.retrieve({ body: { query: "vpn endpoint" } })).body).toEqual({ memories: [] });

    const again = await api.memory.suppress({ params: { id }, body: {} });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { type: "invalid_request_error", code: "invalid_state_transition" } });

    const restored = await api.memory.restore({ params: { id }, body: { reason: "still right" } });
    expect(restored.body).toMatchObject({ memory: { state: "durable" } });
    const restoreAgain = await api.memory.restore({ params: { id }, body: {} });
    expect(restoreAgain.status).toBe(409);
    expect((await api.memory.retrieve({ body: { query: "vpn endpoint" } })).body).toMatchObject({ memories: [{ id }] });
  });

  it("tombstone removes from retrieval, keeps provenance, and is final", async () => {
    const { api } = await tenantClient();
    const created = await api.memory.encode({ body: { text: "Old on-call rotation is weekly." } });
    const id = created.status === 201 ? created.body.memory.id : "";

    const deleted = await api.memory.delete({ params: { id } });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ memory: { id, state: "tombstoned", text: "Old on-call rotation is weekly." } });
    expect((await api.memory.retrieve({ body: { query: "on-call rotation" } })).body).toEqual({ memories: [] });

    expect((await api.memory.delete({ params: { id } })).body).toMatchObject({ memory: { state: "tombstoned" } });
    expect((await api.memory.restore({ params: { id }, body: {} })).status).toBe(409);
    expect((await api.memory.suppress({ params: { id }, body: {} })).status).toBe(409);

    const provenance = await api.memory.provenance({ params: { id } });
    expect(provenance.status).toBe(200);
    expect(provenance.status === 200 && provenance.body.history.map((h) => h.action)).toEqual(["created", "tombstoned"]);
  });

  it("provenance returns the source and the whole history with who, token, reason and when", async () => {
    const { api } = await tenantClient();
    const created = await api.memory.encode({ body: { text: "Feature flags live in LaunchDarkly." }, headers: { "idempotency-key": "prov-1" } });
    const id = created.status === 201 ? created.body.memory.id : "";
    const createdRequestId = created.headers.get("x-request-id");
    await api.memory.reinforce({ params: { id }, body: { reason: "useful", actor: "alice" } });
    await api.memory.suppress({ params: { id }, body: { reason: "moving to Unleash" } });
    await api.memory.restore({ params: { id }, body: {} });
    await api.memory.delete({ params: { id } });

    const res = await api.memory.provenance({ params: { id } });
    expect(res.status).toBe(200);
    if (res.status !== 200) return;
    expect(res.body.memory.state).toBe("tombstoned");
    expect(res.body.source).toMatchObject({ kind: "api", idempotencyKey: "prov-1", requestId: createdRequestId });
    expect(res.body.source.tokenId).toMatch(/^tok_/);
    expect(res.body.history.map((h) => [h.action, h.fromState, h.toState])).toEqual([
      ["created", null, "durable"],
      ["reinforced", "durable", "durable"],
      ["suppressed", "durable", "suppressed"],
      ["restored", "suppressed", "durable"],
      ["tombstoned", "durable", "tombstoned"],
    ]);
    expect(res.body.history[1]).toMatchObject({ actor: "alice", reason: "useful", tokenId: res.body.source.tokenId });
    expect(res.body.history[2]!.reason).toBe("moving to Unleash");
    expect(res.body.history[3]!.actor).toMatch(/^token:/);
    for (const entry of res.body.history) expect(entry.requestId).toMatch(/^req_/);
  });

  it("provenance answers the history a page at a time, oldest first, each page's cursor leading to the next", async () => {
    const { api, token } = await tenantClient();
    const created = await api.memory.encode({ body: { text: "The ledger's keys rotate on Fridays." } });
    const id = created.status === 201 ? created.body.memory.id : "";
    for (let i = 0; i < 7; i++) await api.memory.reinforce({ params: { id }, body: { reason: `use ${i}` } });

    const whole = await api.memory.provenance({ params: { id } });
    expect(whole.status).toBe(200);
    if (whole.status !== 200) return;
    expect(whole.body.history).toHaveLength(8);
    expect(whole.body.nextHistoryCursor).toBeNull();

    const pages: Array<typeof whole.body.history> = [];
    for (let cursor: string | undefined, page = 0; page < 5; page++) {
      const res = await api.memory.provenance({ params: { id }, query: { historyLimit: 3, ...(cursor ? { historyCursor: cursor } : {}) } });
      expect(res.status).toBe(200);
      if (res.status !== 200) return;
      pages.push(res.body.history);
      if (res.body.nextHistoryCursor === null) break;
      cursor = res.body.nextHistoryCursor;
    }
    expect(pages.map((page) => page.length)).toEqual([3, 3, 2]);
    expect(pages.flat()).toEqual(whole.body.history);
    expect(pages.flat().map((entry) => entry.reason)).toEqual([null, ...Array.from({ length: 7 }, (_, i) => `use ${i}`)]);

    // The agent path form pages alike (a shared memory is in every agent's boundary), and a page that ends exactly
    // at the history's end says so.
    const agentForm = await rawRequest(server.url, `/v1/memory/agents/ops/${id}/provenance?historyLimit=5`, { method: "GET", token });
    expect(agentForm.body.history).toEqual(whole.body.history.slice(0, 5));
    const exact = await rawRequest(server.url, `/v1/memory/${id}/provenance?historyLimit=8`, { method: "GET", token });
    expect(exact.body).toMatchObject({ history: whole.body.history, nextHistoryCursor: null });
  });

  it("provenance refuses a history page it cannot read with 400, naming the parameter", async () => {
    const { api, token } = await tenantClient();
    const created = await api.memory.encode({ body: { text: "Pages of history." } });
    const id = created.status === 201 ? created.body.memory.id : "";
    for (const [query, param] of [
      ["historyLimit=0", "historyLimit"],
      ["historyLimit=501", "historyLimit"],
      ["historyLimit=many", "historyLimit"],
      ["historyCursor=", "historyCursor"],
      ["historyCursor=bm90LWEtY3Vyc29y", "historyCursor"],
      // Positions no database stores, or ids of odd bytes: refused before any read, the same on both backends.
      ...[["0000-01-01T00:00:00.000Z", "mhe_x"], ["2026-01-01T00:00:00.000Z", "mhe_\u0000"], ["+275760-09-13T00:00:00.000Z", "mhe_x"]].map(
        (position) => [`historyCursor=${Buffer.from(JSON.stringify(position)).toString("base64url")}`, "historyCursor"] as const,
      ),
      [`historyCursor=${Buffer.from('["2026-01-01T00:00:00.000Z","mhe_\\ud800"]').toString("base64url")}`, "historyCursor"],
      [`historyCursor=${"A".repeat(201)}`, "historyCursor"],
      ["cursor=x", null],
    ] as const) {
      const res = await rawRequest(server.url, `/v1/memory/${id}/provenance?${query}`, { method: "GET", token });
      expect(res.status, query).toBe(400);
      expect(res.body.error, query).toMatchObject({ type: "invalid_request_error" });
      if (param) expect(res.body.error.param, query).toContain(param);
    }
  });

  it("answers 404 in the documented shape for unknown memories", async () => {
    const { api } = await tenantClient();
    for (const res of [
      await api.memory.reinforce({ params: { id: "mem_missing" }, body: {} }),
      await api.memory.suppress({ params: { id: "mem_missing" }, body: {} }),
      await api.memory.restore({ params: { id: "mem_missing" }, body: {} }),
      await api.memory.provenance({ params: { id: "mem_missing" } }),
      await api.memory.delete({ params: { id: "mem_missing" } }),
    ]) {
      expect(res.status).toBe(404);
      expect(ZErrorBody.parse(res.body).error).toMatchObject({ type: "invalid_request_error", code: "memory_not_found" });
    }
  });
});

describe("full-text index", () => {
  it("holds exactly the durable memories, kept in step with every state change", async () => {
    const { api } = await tenantClient();
    const created = await api.memory.encode({ body: { text: "Grafana dashboards are provisioned from git." } });
    const id = (created.body as { memory: { id: string } }).memory.id;
    const found = async () => ((await api.memory.retrieve({ body: { query: "grafana dashboards" } })).body as { memories: unknown[] }).memories.length;
    // SQLite keeps a separate FTS5 table in step through triggers; Postgres indexes the column itself.
    const indexed = async () =>
      databaseUnderTest === "sqlite"
        ? Number((await server.db.$queryRawUnsafe<Array<{ n: unknown }>>(`SELECT count(*) AS n FROM "MemorySearch" WHERE "MemorySearch" MATCH '"memoryKey" : "${id}"'`))[0]!.n)
        : await found();

    expect([await indexed(), await found()]).toEqual([1, 1]);
    await api.memory.suppress({ params: { id }, body: {} });
    expect([await indexed(), await found()]).toEqual([0, 0]);
    await api.memory.restore({ params: { id }, body: {} });
    expect([await indexed(), await found()]).toEqual([1, 1]);
    await api.memory.delete({ params: { id } });
    expect([await indexed(), await found()]).toEqual([0, 0]);
  });
});

describe("OpenAPI", () => {
  it("serves the generated document", async () => {
    const res = await fetch(`${server.url}/openapi.json`);
    expect(res.status).toBe(200);
    const document = (await res.json()) as { openapi: string; paths: Record<string, Record<string, { operationId: string }>> };
    expect(document.openapi).toMatch(/^3\./);
    expect(document.paths["/v1/memory/recall"]?.post?.operationId).toBe("memory.recall");
  });
});
