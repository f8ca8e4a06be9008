import { ZErrorBody } from "@engram/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, rawRequest, startTestServer, type TestServer } from "@engram/test-support";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

async function orgWithMemories() {
  const { orgId, token } = await server.newTenant();
  const api = apiClient(server.url, token);
  const ids = async (res: Promise<{ status: number; body: unknown }>) => ((await res).body as { memory: { id: string } }).memory.id;
  const shared = await ids(api.memory.encode({ body: { text: "Release notes go to the changelog channel." } }));
  const triage = await ids(api.memory.encodeForAgent({ params: { agentSlug: "triage" }, body: { text: "Triage labels release bugs as P1." } }));
  const support = await ids(api.memory.encodeForAgent({ params: { agentSlug: "support" }, body: { text: "Support answers release questions in Zendesk." } }));
  return { orgId, token, api, shared, triage, support };
}

const idsOf = (res: { status: number; body: unknown }) =>
  ((res.body as { memories: Array<{ id: string }> }).memories ?? []).map((m) => m.id).sort();

describe("agent path forms", () => {
  it("writes through an agent path belong to that agent; the header form works the same", async () => {
    const { token, api, triage } = await orgWithMemories();
    const viaHeader = await apiClient(server.url, token, { "x-service-agent": "triage" }).memory.encode({ body: { text: "Triage runs hourly." } });
    expect(viaHeader.body).toMatchObject({ memory: { agent: "triage" } });
    expect((await api.memory.provenance({ params: { id: triage } })).body).toMatchObject({ memory: { agent: "triage" } });
  });

  it("retrieval inside an agent boundary sees the agent's own and shared memories only", async () => {
    const { api, shared, triage, support } = await orgWithMemories();
    const body = { query: "release" };
    for (const route of ["retrieveForAgent", "recallForAgent", "searchForAgent"] as const) {
      expect(idsOf(await api.memory[route]({ params: { agentSlug: "triage" }, body }))).toEqual([shared, triage].sort());
    }
    expect(idsOf(await api.memory.retrieve({ body, headers: { "x-service-agent": "support" } }))).toEqual([shared, support].sort());
    // Without an agent the caller acts for the whole organization.
    expect(idsOf(await api.memory.retrieve({ body }))).toEqual([shared, support, triage].sort());
  });

  it("answers 404, never 403, for a memory outside the agent's boundary", async () => {
    const { api, shared, support } = await orgWithMemories();
    const agentSlug = "triage";
    const outside = [
      await api.memory.reinforceForAgent({ params: { agentSlug, id: support }, body: {} }),
      await api.memory.suppressForAgent({ params: { agentSlug, id: support }, body: {} }),
      await api.memory.restoreForAgent({ params: { agentSlug, id: support }, body: {} }),
      await api.memory.provenanceForAgent({ params: { agentSlug, id: support } }),
      await api.memory.deleteForAgent({ params: { agentSlug, id: support } }),
    ];
    for (const res of outside) {
      expect(res.status).toBe(404);
      expect(ZErrorBody.parse(res.body).error.code).toBe("memory_not_found");
    }
    expect((await api.memory.provenance({ params: { id: support } })).body).toMatchObject({ memory: { state: "durable" } });

    // Shared memories are inside every agent's boundary.
    expect((await api.memory.reinforceForAgent({ params: { agentSlug, id: shared }, body: {} })).status).toBe(200);
    expect((await api.memory.suppressForAgent({ params: { agentSlug, id: shared }, body: {} })).status).toBe(200);
    expect((await api.memory.restoreForAgent({ params: { agentSlug, id: shared }, body: {} })).status).toBe(200);
    expect((await api.memory.provenanceForAgent({ params: { agentSlug, id: shared } })).status).toBe(200);
    expect((await api.memory.deleteForAgent({ params: { agentSlug, id: shared } })).body).toMatchObject({ memory: { state: "tombstoned" } });
  });

  it("rejects a path agent that differs from X-Service-Agent", async () => {
    const { api } = await orgWithMemories();
    const res = await api.memory.retrieveForAgent({ params: { agentSlug: "triage" }, body: { query: "x" }, headers: { "x-service-agent": "support" } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: "agent_conflict", param: "X-Service-Agent" } });
  });

  it("rejects invalid agent slugs in the path and the header", async () => {
    const { token } = await server.newTenant();
    const inPath = await rawRequest(server.url, "/v1/memory/agents/Not_A_Slug/retrieve", { token, body: JSON.stringify({ query: "x" }) });
    expect(inPath.status).toBe(400);
    expect(inPath.body.error).toMatchObject({ code: "invalid_parameter", param: "agentSlug" });
    const inHeader = await rawRequest(server.url, "/v1/memory/retrieve", { token, body: JSON.stringify({ query: "x" }), headers: { "x-service-agent": "UPPER" } });
    expect(inHeader.status).toBe(400);
    expect(inHeader.body.error).toMatchObject({ code: "invalid_parameter", param: "X-Service-Agent" });
  });

  it("routes /v1/memory/agents/<verb> to the agent named like the verb", async () => {
    const { token } = await server.newTenant();
    const res = await rawRequest(server.url, "/v1/memory/agents/reinforce", { token, body: JSON.stringify({ text: "An agent called reinforce." }) });
    expect(res.status).toBe(201);
    expect(res.body.memory.agent).toBe("reinforce");
  });
});

describe("agent-bound tokens", () => {
  it("work only on their own agents' paths", async () => {
    const { orgId, shared, support, triage } = await orgWithMemories();
    const bound = apiClient(server.url, await server.newToken(orgId, { agents: ["triage"] }));

    const own = await bound.memory.retrieveForAgent({ params: { agentSlug: "triage" }, body: { query: "release" } });
    expect(idsOf(own)).toEqual([shared, triage].sort());
    expect((await bound.memory.encodeForAgent({ params: { agentSlug: "triage" }, body: { text: "ok" } })).status).toBe(201);

    for (const res of [
      await bound.memory.retrieve({ body: { query: "release" } }),
      await bound.memory.encode({ body: { text: "no agent" } }),
      await bound.memory.retrieveForAgent({ params: { agentSlug: "support" }, body: { query: "release" } }),
      await bound.memory.provenanceForAgent({ params: { agentSlug: "support", id: support } }),
      await bound.memory.provenance({ params: { id: triage } }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: { type: "authorization_error", code: "agent_not_allowed" } });
    }
  });

  it("change only their agents' memories: the organization's shared ones are theirs to read and reinforce, not to hide", async () => {
    const { orgId, token, shared, triage } = await orgWithMemories();
    const bound = apiClient(server.url, await server.newToken(orgId, { agents: ["triage"] }));
    const params = (id: string) => ({ params: { agentSlug: "triage", id }, body: { reason: "checked" } });
    for (const res of [
      await bound.memory.suppressForAgent(params(shared)),
      await bound.memory.restoreForAgent(params(shared)),
      await bound.memory.deleteForAgent({ params: { agentSlug: "triage", id: shared } }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: { type: "authorization_error", code: "agent_not_allowed" } });
    }
    expect((await bound.memory.reinforceForAgent(params(shared))).status).toBe(200);
    expect((await bound.memory.suppressForAgent(params(triage))).status).toBe(200);
    expect((await bound.memory.restoreForAgent(params(triage))).status).toBe(200);
    expect((await bound.memory.deleteForAgent({ params: { agentSlug: "triage", id: triage } })).status).toBe(200);
    // The shared memory is untouched, and a token for the whole organization may still change it on an agent path.
    const whole = apiClient(server.url, token);
    expect((await whole.memory.provenance({ params: { id: shared } })).body).toMatchObject({ memory: { state: "durable" } });
    expect((await whole.memory.suppressForAgent(params(shared))).status).toBe(200);
  });
});
