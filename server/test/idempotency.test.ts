import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, rawRequest, startTestServer, type TestServer } from "@engram/test-support";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

const memoryCount = (orgId: string) => server.db.memory.count({ where: { orgId } });

describe("Idempotency-Key on encode", () => {
  it("replays the original status and body, marked Idempotent-Replayed, and stores once", async () => {
    const { orgId, token } = await server.newTenant();
    const send = (body: string) =>
      rawRequest(server.url, "/v1/memory", { token, body, headers: { "idempotency-key": "deploy-42" } });
    const first = await send(JSON.stringify({ text: "Deploy 42 shipped.", subject: "deploys", confidence: 0.9 }));
    // Same request, keys in another order and other whitespace.
    const replay = await send('{ "confidence": 0.9,  "subject": "deploys", "text": "Deploy 42 shipped." }');
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);
    expect(await memoryCount(orgId)).toBe(1);
  });

  it("answers 409 idempotency_key_reused for a different body under the same key, storing nothing", async () => {
    const { orgId, token } = await server.newTenant();
    const api = apiClient(server.url, token);
    const headers = { "idempotency-key": "reused" };
    expect((await api.memory.encode({ body: { text: "first" }, headers })).status).toBe(201);
    const conflict = await api.memory.encode({ body: { text: "second" }, headers });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ error: { type: "invalid_request_error", code: "idempotency_key_reused", param: "Idempotency-Key" } });
    // The same body on another agent is a different request too.
    const otherAgent = await api.memory.encodeForAgent({ params: { agentSlug: "bot" }, body: { text: "first" }, headers });
    expect(otherAgent.status).toBe(409);
    expect(await memoryCount(orgId)).toBe(1);
  });

  it("resolves concurrent requests with one key to one write", async () => {
    const { orgId, token } = await server.newTenant();
    const api = apiClient(server.url, token);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => api.memory.encode({ body: { text: "Concurrent write." }, headers: { "idempotency-key": "race" } })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    const ids = new Set(results.map((r) => (r.body as { memory: { id: string } }).memory.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(9);
    expect(await memoryCount(orgId)).toBe(1);
  });

  it("scopes keys to the environment and the organization", async () => {
    const orgId = await server.newOrg();
    const body = { text: "Same event everywhere." };
    const headers = { "idempotency-key": "shared-key" };
    for (const environment of ["test", "staging", "production"] as const) {
      const api = apiClient(server.url, await server.newToken(orgId, { environment }));
      const res = await api.memory.encode({ body, headers });
      expect(res.headers.get("idempotent-replayed")).toBeNull();
      expect(res.body).toMatchObject({ memory: { environment } });
    }
    expect(await memoryCount(orgId)).toBe(3);
    const other = await server.newTenant();
    expect((await apiClient(server.url, other.token).memory.encode({ body, headers })).headers.get("idempotent-replayed")).toBeNull();
  });

  it("without a key, every request writes", async () => {
    const { orgId, token } = await server.newTenant();
    const api = apiClient(server.url, token);
    await api.memory.encode({ body: { text: "twice" } });
    await api.memory.encode({ body: { text: "twice" } });
    expect(await memoryCount(orgId)).toBe(2);
  });

  it("rejects an empty or oversized key", async () => {
    const { orgId, token } = await server.newTenant();
    for (const key of ["", "k".repeat(256)]) {
      const res = await rawRequest(server.url, "/v1/memory", { token, body: JSON.stringify({ text: "x" }), headers: { "idempotency-key": key } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "invalid_parameter", param: "Idempotency-Key" });
    }
    expect(await memoryCount(orgId)).toBe(0);
  });
});

describe("an Idempotency-Key past its 24 hours", () => {
  let clocked: TestServer;
  let offsetMs = 0;
  beforeAll(async () => {
    clocked = await startTestServer({ now: () => new Date(Date.now() + offsetMs) });
  });
  afterAll(() => clocked?.stop());

  it("is claimed afresh by a new request, which is stored once, and replayed under the key from then on", async () => {
    const { orgId, token } = await clocked.newTenant();
    const api = apiClient(clocked.url, token);
    const headers = { "idempotency-key": "nightly-report" };
    const first = await api.memory.encode({ body: { text: "Monday's report is in." }, headers });
    expect(first.status).toBe(201);
    offsetMs = 25 * 3600_000;
    // The same key, another body: the old record is gone and the new request takes the key (on Postgres the
    // expired record's removal and the new claim are one transaction, the removal first).
    const later = await api.memory.encode({ body: { text: "Tuesday's report is in." }, headers });
    expect(later.status).toBe(201);
    expect(later.headers.get("idempotent-replayed")).toBeNull();
    const replay = await api.memory.encode({ body: { text: "Tuesday's report is in." }, headers });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(later.body);
    const stored = await clocked.db.memory.findMany({ where: { orgId }, orderBy: { createdAt: "asc" }, select: { text: true } });
    expect(stored.map((m) => m.text)).toEqual(["Monday's report is in.", "Tuesday's report is in."]);
    expect(await clocked.db.idempotencyRecord.count({ where: { orgId, key: "nightly-report" } })).toBe(1);
  });
});
