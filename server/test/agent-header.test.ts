import { ZErrorBody } from "@engram/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, startTestServer, type TestServer } from "@engram/test-support";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

const event = JSON.stringify({ type: "deploy.completed", text: "payments-api v3 deployed.", subject: "payments-api" });

function expectAgentHeaderRefused(res: { status: number; body: unknown }) {
  expect(res.status).toBe(400);
  const { error } = ZErrorBody.parse(res.body);
  expect(error).toMatchObject({ type: "invalid_request_error", code: "invalid_parameter", param: "X-Service-Agent" });
  expect(error.message).toMatch(/no agent form/);
}

describe("X-Service-Agent on a route without an agent form", () => {
  it("POST /v1/memory/events refuses it, even empty, and stores nothing", async () => {
    const { orgId, token } = await server.newTenant();
    for (const agent of ["triage", ""]) {
      expectAgentHeaderRefused(await rawRequest(server.url, "/v1/memory/events", { token, body: event, headers: { "x-service-agent": agent } }));
    }
    // An agent-bound token naming its own agent learns why, rather than a bare 403.
    const bound = await server.newToken(orgId, { agents: ["triage"] });
    expectAgentHeaderRefused(await rawRequest(server.url, "/v1/memory/events", { token: bound, body: event, headers: { "x-service-agent": "triage" } }));
    expect(await server.db.businessEvent.count({ where: { orgId } })).toBe(0);
    expect(await server.db.memory.count({ where: { orgId } })).toBe(0);
  });

  it("GET /v1/models refuses it", async () => {
    const { token } = await server.newTenant();
    expectAgentHeaderRefused(await rawRequest(server.url, "/v1/models", { method: "GET", token, headers: { "x-service-agent": "triage" } }));
    expect((await rawRequest(server.url, "/v1/models", { method: "GET", token })).status).toBe(200);
  });
});

describe("X-Service-Agent on routes with an agent form", () => {
  it("acts for the named agent on memory and chat routes", async () => {
    const { orgId } = await server.newTenant();
    const token = await server.newToken(orgId, { scopes: ["memory:read", "memory:write", "inference:chat"] });
    const headers = { "x-service-agent": "triage" };
    const encoded = await rawRequest(server.url, "/v1/memory", { token, body: JSON.stringify({ text: "Triage pages on-call for P1s." }), headers });
    expect(encoded.body).toMatchObject({ memory: { agent: "triage" } });
    const chat = { model: "engram-memory-1", messages: [{ role: "user", content: "Who does triage page for a P1?" }] };
    const answered = await rawRequest(server.url, "/v1/chat/completions", { token, body: JSON.stringify(chat), headers });
    expect(answered.status).toBe(200);
    expect(answered.headers.get("x-engram-memories-used")).toBe("1");
    // Outside that agent's boundary the memory is not there to use.
    const other = await rawRequest(server.url, "/v1/chat/completions", { token, body: JSON.stringify(chat), headers: { "x-service-agent": "support" } });
    expect(other.headers.get("x-engram-memories-used")).toBe("0");
  });
});
