import { memoryScopes, type TScope, ZErrorBody } from "@engram/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, rawRequest, startServerOn, startTestServer, type TestServer } from "@engram/test-support";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

describe("bearer tokens", () => {
  const rejected = async (headers: Record<string, string>) => {
    const res = await rawRequest(server.url, "/v1/memory/retrieve", { body: JSON.stringify({ query: "x" }), headers });
    expect(res.status).toBe(401);
    expect(ZErrorBody.parse(res.body).error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
    return res.body.error.message as string;
  };

  it("rejects a missing, malformed or unknown token with 401 invalid_api_key", async () => {
    expect(await rejected({})).toMatch(/Missing bearer token/);
    expect(await rejected({ authorization: "Basic dXNlcjpwYXNz" })).toMatch(/Missing bearer token/);
    expect(await rejected({ authorization: "Bearer sk-not-ours" })).toMatch(/Malformed/);
    expect(await rejected({ authorization: `Bearer acm_${"x".repeat(43)}` })).toMatch(/Invalid or revoked/);
  });

  it("rejects a revoked token", async () => {
    const { orgId, token } = await server.newTenant();
    const api = apiClient(server.url, token);
    expect((await api.memory.retrieve({ body: { query: "x" } })).status).toBe(200);
    const [record] = await server.services.tokens.list(orgId);
    expect(await server.services.tokens.revoke(record!.id)).toBe(true);
    expect(await rejected({ authorization: `Bearer ${token}` })).toMatch(/revoked/);
  });

  it("stops accepting a token revoked by another process within the auth cache window", async () => {
    const { orgId, token } = await server.newTenant();
    const cacheMs = 300;
    const other = await startServerOn(server.database, { authCacheMs: cacheMs });
    try {
      const call = () => rawRequest(other.url, "/v1/memory/retrieve", { token, body: JSON.stringify({ query: "x" }) });
      expect((await call()).status).toBe(200);
      const [record] = await server.services.tokens.list(orgId);
      await server.services.tokens.revoke(record!.id);
      // Waiting just past the window is the bound: a cache kept any longer still answers 200 here.
      await new Promise((resolve) => setTimeout(resolve, cacheMs + 50));
      expect((await call()).status).toBe(401);
    } finally {
      await other.close();
    }
  });

  it("stores only a hash of the token", async () => {
    const { orgId, token } = await server.newTenant();
    const rows = await server.db.accessToken.findMany({ where: { orgId } });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0]!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("rejects a token without environment binding when the organization has environments", async () => {
    const orgId = await server.newOrg();
    const token = await server.newToken(orgId, { environment: null });
    const res = await rawRequest(server.url, "/v1/memory/retrieve", { token, body: JSON.stringify({ query: "x" }) });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ type: "authentication_error", code: "token_environment_required" });
  });

  it("lets an unbound token of an organization without environments work in production", async () => {
    const orgId = await server.newOrg({ environmentsEnabled: false });
    const api = apiClient(server.url, await server.newToken(orgId, { environment: null }));
    const res = await api.memory.encode({ body: { text: "Single-environment org." } });
    expect(res.body).toMatchObject({ memory: { environment: "production" } });
  });
});

describe("scopes", () => {
  const required: Array<[string, TScope, (api: ReturnType<typeof apiClient>, id: string) => Promise<{ status: number; body: unknown }>]> = [
    ["encode", "memory:write", (api) => api.memory.encode({ body: { text: "scoped" } })],
    ["retrieve", "memory:read", (api) => api.memory.retrieve({ body: { query: "scoped" } })],
    ["recall", "memory:read", (api) => api.memory.recall({ body: { query: "scoped" } })],
    ["search", "memory:read", (api) => api.memory.search({ body: { query: "scoped" } })],
    ["reinforce", "memory:control", (api, id) => api.memory.reinforce({ params: { id }, body: {} })],
    ["suppress", "memory:control", (api, id) => api.memory.suppress({ params: { id }, body: {} })],
    ["provenance", "memory:control", (api, id) => api.memory.provenance({ params: { id } })],
    ["delete", "memory:delete", (api, id) => api.memory.delete({ params: { id } })],
  ];

  it.each(required)("%s needs %s: denied without it, allowed with only it", async (_route, scope, call) => {
    const { orgId, token } = await server.newTenant();
    const created = await apiClient(server.url, token).memory.encode({ body: { text: "scoped memory" } });
    const id = created.status === 201 ? created.body.memory.id : "";

    const allOthers = [...memoryScopes, "inference:chat", "knowledge:read"].filter((s) => s !== scope) as TScope[];
    const denied = await call(apiClient(server.url, await server.newToken(orgId, { scopes: allOthers })), id);
    expect(denied.status).toBe(403);
    expect(ZErrorBody.parse(denied.body).error).toMatchObject({ type: "authorization_error", code: "insufficient_scope" });
    expect((denied.body as { error: { message: string } }).error.message).toContain(scope);

    const allowed = await call(apiClient(server.url, await server.newToken(orgId, { scopes: [scope] })), id);
    expect(allowed.status).toBeLessThan(300);
  });
});

describe("environments", () => {
  it("never lets one environment see or touch another's memories", async () => {
    const orgId = await server.newOrg();
    const testApi = apiClient(server.url, await server.newToken(orgId, { environment: "test" }));
    const stagingApi = apiClient(server.url, await server.newToken(orgId, { environment: "staging" }));
    const productionApi = apiClient(server.url, await server.newToken(orgId, { environment: "production" }));

    const created = await testApi.memory.encode({ body: { text: "Canary hosts run the test build." } });
    expect(created.body).toMatchObject({ memory: { environment: "test" } });
    const id = created.status === 201 ? created.body.memory.id : "";

    for (const api of [stagingApi, productionApi]) {
      expect((await api.memory.retrieve({ body: { query: "canary hosts" } })).body).toEqual({ memories: [] });
      expect((await api.memory.reinforce({ params: { id }, body: {} })).status).toBe(404);
      expect((await api.memory.provenance({ params: { id } })).status).toBe(404);
      expect((await api.memory.delete({ params: { id } })).status).toBe(404);
    }
    expect((await testApi.memory.retrieve({ body: { query: "canary hosts" } })).body).toMatchObject({ memories: [{ id }] });
  });

  it("keeps organizations apart", async () => {
    const a = apiClient(server.url, (await server.newTenant()).token);
    const b = apiClient(server.url, (await server.newTenant()).token);
    const created = await a.memory.encode({ body: { text: "Org A's secret roadmap." } });
    const id = created.status === 201 ? created.body.memory.id : "";
    expect((await b.memory.retrieve({ body: { query: "secret roadmap" } })).body).toEqual({ memories: [] });
    expect((await b.memory.provenance({ params: { id } })).status).toBe(404);
  });
});
