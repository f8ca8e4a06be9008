import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, startTestServer, temporaryDirectory, type TestServer } from "@engram/test-support";
import { sendRaw } from "../hostile/raw-http";
import { MAX_ANSWER_CHARS } from "../../src/mcp/mcp-server";
import { mcpToolSuites } from "./suites";
import { allToolNames, call, connectOverHttp, recalledIds, structured, toolError } from "./support";

mcpToolSuites("Streamable HTTP", (url, token, options) => connectOverHttp(url, token, options));

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

/** A JSON-RPC message as a client POSTs it, with the headers Streamable HTTP requires. */
function post(path: string, token: string | undefined, message: unknown, headers: Record<string, string> = {}) {
  return rawRequest(server.url, path, {
    token,
    body: typeof message === "string" ? message : JSON.stringify(message),
    headers: { accept: "application/json, text/event-stream", ...headers },
  });
}

const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
const recallCall = (query: unknown) => ({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "recall", arguments: { query } } });

describe("the /mcp endpoint over HTTP", () => {
  it("refuses a missing, unknown or environment-less token with the documented 401 before reading any MCP", async () => {
    const orgId = await server.newOrg();
    const unbound = await server.newToken(orgId, { environment: null });
    for (const [token, code] of [[undefined, "invalid_api_key"], [`acm_${"y".repeat(43)}`, "invalid_api_key"], [unbound, "token_environment_required"]] as const) {
      const answer = await post("/mcp", token, initialize);
      expect(answer.status, code).toBe(401);
      expect(answer.body).toEqual({ error: { type: "authentication_error", code, message: expect.any(String), param: null } });
    }
    await expect(connectOverHttp(server.url, `acm_${"y".repeat(43)}`)).rejects.toMatchObject({ code: 401 });
  });

  it("is stateless: no session id, and every POST stands alone, so any worker can answer it", async () => {
    const { token } = await server.newTenant();
    const initialized = await post("/mcp", token, initialize);
    expect(initialized.status).toBe(200);
    expect(initialized.headers.get("mcp-session-id")).toBeNull();
    expect(initialized.body.result).toMatchObject({ serverInfo: { name: "engram" }, capabilities: { tools: {} }, instructions: expect.stringContaining("Recall before answering") });

    // A call on its own, as a request reaching a worker that never saw the initialize would be.
    const called = await post("/mcp", token, recallCall("anything"), { "mcp-protocol-version": "2025-06-18" });
    expect(called.status).toBe(200);
    expect(called.body.result).toMatchObject({ structuredContent: { memories: [] } });
  });

  it("answers other methods with 405 in the documented shape, without needing a token", async () => {
    for (const path of ["/mcp", "/mcp/agents/alpha"]) {
      for (const method of ["GET", "DELETE", "PUT"]) {
        const answer = await rawRequest(server.url, path, { method, headers: { accept: "text/event-stream" } });
        expect(answer.status, `${method} ${path}`).toBe(405);
        expect(answer.headers.get("allow")).toBe("POST");
        expect(answer.body).toEqual({ error: { type: "invalid_request_error", code: "method_not_allowed", message: expect.stringContaining("stateless"), param: null } });
      }
    }
  });

  it("reads and checks the body like every route: odd bytes get the same documented 4xx", async () => {
    const { token } = await server.newTenant();
    const expectError = (answer: { status: number; body: any }, status: number, code: string, param: string | null = null) => {
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      expect(answer.body.error).toMatchObject({ code, param });
    };
    expectError(await post("/mcp", token, "{not json"), 400, "invalid_json");
    expectError(await rawRequest(server.url, "/mcp", { token, body: JSON.stringify(initialize), contentType: "text/plain" }), 415, "unsupported_media_type");
    expectError(await post("/mcp", token, recallCall("nul\u0000here")), 400, "invalid_parameter", "params.arguments.query");
    expectError(await post("/mcp", token, recallCall("lone \ud800 surrogate")), 400, "invalid_parameter", "params.arguments.query");
    const mcpHeaders = { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
    const notUtf8 = await sendRaw(server.url, { path: "/mcp", headers: mcpHeaders, body: Buffer.from([0x7b, 0xff, 0x7d]) });
    expectError({ status: notUtf8.status, body: notUtf8.json }, 400, "invalid_json");
    // Compressed bodies are inflated and read as usual; the 1 MiB limit counts the inflated bytes.
    const gzipped = (message: unknown) => sendRaw(server.url, { path: "/mcp", headers: { ...mcpHeaders, "content-encoding": "gzip" }, body: gzipSync(JSON.stringify(message)) });
    expect((await gzipped(initialize)).status).toBe(200);
    const bomb = await gzipped(recallCall("a".repeat(2 * 1024 * 1024)));
    expectError({ status: bomb.status, body: bomb.json }, 413, "payload_too_large");
    // Paths match exactly, as every route's do.
    for (const path of ["/mcp/", "/MCP", "/mcp/agents/alpha/"]) expectError(await post(path, token, initialize), 404, "route_not_found");
  });

  it("answers arguments that are not an object of fields as invalid params, never as an internal error", async () => {
    const { token } = await server.newTenant();
    const call = (args: unknown) => post("/mcp", token, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "recall", arguments: args } });
    for (const args of [null, ["x"], { query: "x", constructor: 1 }]) {
      const answer = await call(args);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ jsonrpc: "2.0", id: 2, error: { code: -32602 } });
    }
    // So are params missing, or without a tool's name.
    for (const params of [undefined, {}, { name: 7 }]) {
      const answer = await post("/mcp", token, { jsonrpc: "2.0", id: 3, method: "tools/call", ...(params === undefined ? {} : { params }) });
      expect(answer.body, `${JSON.stringify(params)} ${JSON.stringify(answer.body)}`).toMatchObject({ jsonrpc: "2.0", id: 3, error: { code: -32602 } });
    }
    // Fields the route does not know are the route's error, as a tool error.
    const unknown = await call({ query: "x", extra: 1 });
    expect(unknown.body.result.isError).toBe(true);
    expect(JSON.parse(unknown.body.result.content[0].text)).toMatchObject({ error: { code: "unknown_parameter", param: "extra" } });
  });

  it("answers a JSON body that is not JSON-RPC with the protocol's own error", async () => {
    const { token } = await server.newTenant();
    const answer = await post("/mcp", token, { hello: "world" });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
  });

  it("answers a client that does not accept both JSON and event streams with 406, in JSON-RPC form", async () => {
    const { token } = await server.newTenant();
    for (const accept of ["application/json", "text/event-stream", "*/*"]) {
      const answer = await post("/mcp", token, initialize, { accept });
      expect(answer.status, accept).toBe(406);
      expect(answer.body, accept).toMatchObject({ jsonrpc: "2.0", error: { message: expect.stringMatching(/accept/i) } });
    }
  });
});

describe("a JSON-RPC batch on /mcp", () => {
  const toolCall = (id: number, name: string, args: Record<string, unknown>) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
  const protocol = { "mcp-protocol-version": "2025-03-26" };

  it("runs its calls one after another, in order: a recall sees what the remember before it stored", async () => {
    const { token } = await server.newTenant();
    const answer = await post("/mcp", token, [toolCall(1, "remember", { text: "The batch ledger rotates its keys on Fridays." }), toolCall(2, "recall", { query: "batch ledger keys" })], protocol);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const byId = new Map((answer.body as Array<{ id: number; result: { structuredContent: any } }>).map((reply) => [reply.id, reply.result.structuredContent]));
    const rememberedId = byId.get(1).memory.id;
    expect(byId.get(2).memories.map((m: { id: string }) => m.id)).toEqual([rememberedId]);
  });

  it("lets the server answer others between its calls: a hundred recalls hold the event loop about as long as one", async () => {
    const { token } = await server.newTenant();
    const words = ["ledger", "deploy", "rotation", "incident", "billing", "queue", "cache", "schema", "replica", "token"];
    const text = (i: number) => `Note ${i}: the ${words[i % 10]} ${words[(i * 3) % 10]} runbook names ${words[(i * 7) % 10]} owners.`;
    const remembered = await post("/mcp", token, Array.from({ length: 100 }, (_, i) => toolCall(i, "remember", { text: text(i) })), protocol);
    expect(remembered.status).toBe(200);
    const query = Array.from({ length: 200 }, (_, i) => words[i % 10]).join(" ").slice(0, 2000);
    const recalls = Array.from({ length: 100 }, (_, i) => toolCall(i, "recall", { query, limit: 100 }));

    const stalls = monitorEventLoopDelay({ resolution: 5 });
    stalls.enable();
    const one = await post("/mcp", token, recalls.slice(0, 1), protocol);
    const longestAlone = stalls.max / 1e6;
    stalls.reset();
    const all = await post("/mcp", token, recalls, protocol);
    const longestInBatch = stalls.max / 1e6;
    stalls.disable();
    expect([one.status, all.status]).toEqual([200, 200]);
    expect((all.body as unknown[]).length).toBe(100);
    // Loose, for a busy machine: run together, the hundred held it about a hundred times as long.
    expect(longestInBatch).toBeLessThan(Math.max(10 * longestAlone, 500));
  });
});

describe("the answers of one request on /mcp", () => {
  const toolCall = (id: number, name: string, args: Record<string, unknown>) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
  const protocol = { "mcp-protocol-version": "2025-03-26" };

  it("hold at most MAX_ANSWER_CHARS together: the calls past it answer payload_too_large, each to be sent again", async () => {
    const { token } = await server.newTenant();
    // Control characters, which JSON writes six characters each: a recall of ten such memories answers about 0.5 MB.
    const text = (i: number) => `Note ${i} ${Array.from({ length: 7_900 }, (_, k) => String.fromCharCode(1 + ((i + k) % 8))).join("")}`;
    const remembered = await post("/mcp", token, Array.from({ length: 10 }, (_, i) => toolCall(i, "remember", { text: text(i) })), protocol);
    expect(remembered.status).toBe(200);
    const recall = (id: number) => toolCall(id, "recall", { query: "note" });

    const alone = await post("/mcp", token, recall(0), protocol);
    const size = JSON.stringify((alone.body as { result: unknown }).result).length;
    expect(size).toBeGreaterThan(MAX_ANSWER_CHARS / 30);
    const fit = Math.floor(MAX_ANSWER_CHARS / size);
    const batch = await post("/mcp", token, Array.from({ length: fit + 3 }, (_, i) => recall(i)), protocol);
    expect(batch.status).toBe(200);
    const replies = batch.body as Array<{ id: number; result: { isError?: boolean; content: Array<{ text: string }> } }>;
    expect(replies.map((reply) => reply.id)).toEqual(Array.from({ length: fit + 3 }, (_, i) => i));
    for (const reply of replies.slice(0, fit)) expect(JSON.stringify(reply.result).length).toBe(size);
    for (const reply of replies.slice(fit)) {
      expect(reply.result.isError).toBe(true);
      expect(JSON.parse(reply.result.content[0]!.text)).toMatchObject({ error: { code: "payload_too_large", type: "invalid_request_error" } });
    }
  });
});

describe("agents on the /mcp endpoint", () => {
  it("takes the agent from X-Service-Agent as from the path", async () => {
    const { token } = await server.newTenant();
    const byPath = await connectOverHttp(server.url, token, { agent: "triage" });
    const byHeader = await connectOverHttp(server.url, token, { headers: { "x-service-agent": "triage" } });
    const other = await connectOverHttp(server.url, token, { headers: { "x-service-agent": "billing" } });
    try {
      const memory = structured(await call(byPath, "remember", { text: "Triage escalates sev1 pages to the incident commander." })).memory;
      expect(memory.agent).toBe("triage");
      expect(await recalledIds(byHeader, "sev1 incident commander")).toEqual([memory.id]);
      expect(await recalledIds(other, "sev1 incident commander")).toEqual([]);
      expect((await byHeader.listTools()).tools.map((tool) => tool.name)).not.toContain("send_event");
    } finally {
      await Promise.all([byPath.close(), byHeader.close(), other.close()]);
    }
  });

  it("refuses a conflicting or malformed agent at connection, as the memory routes do", async () => {
    const { token } = await server.newTenant();
    const conflict = await post("/mcp/agents/alpha", token, initialize, { "x-service-agent": "beta" });
    const overRoute = await rawRequest(server.url, "/v1/memory/agents/alpha/recall", { token, body: JSON.stringify({ query: "x" }), headers: { "x-service-agent": "beta" } });
    expect(conflict).toMatchObject({ status: 400, body: overRoute.body });
    expect(conflict.body.error.code).toBe("agent_conflict");
    await expect(connectOverHttp(server.url, token, { agent: "alpha", headers: { "x-service-agent": "beta" } })).rejects.toMatchObject({ code: 400 });

    const badPath = await post("/mcp/agents/Not_A_Slug", token, initialize);
    expect(badPath).toMatchObject({ status: 400, body: (await rawRequest(server.url, "/v1/memory/agents/Not_A_Slug/recall", { token, body: JSON.stringify({ query: "x" }) })).body });
    expect(badPath.body.error).toMatchObject({ code: "invalid_parameter", param: "agentSlug" });
    const badHeader = await post("/mcp", token, initialize, { "x-service-agent": "Not A Slug" });
    expect(badHeader.body.error).toMatchObject({ code: "invalid_parameter", param: "X-Service-Agent" });
  });

  it("lets an agent-bound token connect only inside its agents", async () => {
    const orgId = await server.newOrg();
    const token = await server.newToken(orgId, { agents: ["alpha"] });
    expect((await post("/mcp", token, initialize)).body.error).toMatchObject({ code: "agent_not_allowed" });
    expect((await post("/mcp/agents/beta", token, initialize)).body.error).toMatchObject({ code: "agent_not_allowed" });
    const alpha = await connectOverHttp(server.url, token, { agent: "alpha" });
    try {
      expect((await alpha.listTools()).tools.map((tool) => tool.name)).toEqual(allToolNames.filter((name) => name !== "send_event"));
      expect(structured(await call(alpha, "remember", { text: "Bound to alpha." })).memory.agent).toBe("alpha");
    } finally {
      await alpha.close();
    }
  });
});

describe("the console beside /mcp", () => {
  it("never answers /mcp with the console's page, even to a browser", async () => {
    const consoleDir = temporaryDirectory("engram-console-");
    mkdirSync(join(consoleDir, "assets"));
    writeFileSync(join(consoleDir, "index.html"), "<!doctype html><title>console</title>");
    const withConsole = await startTestServer({ consoleDir });
    try {
      for (const path of ["/mcp", "/mcp/agents/alpha", "/mcp/elsewhere"]) {
        const answer = await fetch(`${withConsole.url}${path}`, { headers: { accept: "text/html" } });
        expect(answer.status, path).toBe(path === "/mcp/elsewhere" ? 404 : 405);
        expect(answer.headers.get("content-type"), path).toContain("application/json");
      }
    } finally {
      await withConsole.stop();
    }
  });
});
