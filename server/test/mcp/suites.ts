import { memoryLimits, type TScope, ZMemoryKind } from "@engram/contract";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, startTestServer, type TestServer } from "@engram/test-support";
import { parseRateLimitSetting } from "../../src/domain/rate-limits/policy";
import { allToolNames, call, recalledIds, structured, texts, toolError } from "./support";

/** Opens an MCP client to the server at `baseUrl` with `token`, inside `agent`'s boundary when one is given. */
export type Connect = (baseUrl: string, token: string, options?: { agent?: string }) => Promise<Client>;

/**
 * What every MCP transport must do alike, against real servers over each transport: the tools, their answers
 * and errors, boundaries, rate limits and refusals.
 */
export function mcpToolSuites(transport: string, connect: Connect): void {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const clients: Client[] = [];
  const openOn = async (on: TestServer, token: string, options?: { agent?: string }) => {
    const client = await connect(on.url, token, options);
    clients.push(client);
    return client;
  };
  const open = (token: string, options?: { agent?: string }) => openOn(server, token, options);
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  const httpOn = (on: TestServer, path: string, token: string, body?: object, method = "POST") =>
    rawRequest(on.url, path, { method, token, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const http = (path: string, token: string, body?: object, method = "POST") => httpOn(server, path, token, body, method);

  describe(`MCP over ${transport}: the tools a token may use`, () => {
    it("lists every tool for a token with all memory scopes, with the contract's rules as JSON schemas and their annotations", async () => {
      const client = await open((await server.newTenant()).token);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(allToolNames);
      const tool = Object.fromEntries(tools.map((listed) => [listed.name, listed]));
      expect(tool.remember!.inputSchema).toMatchObject({
        type: "object",
        required: ["text"],
        additionalProperties: false,
        properties: {
          text: { type: "string", minLength: 1, maxLength: memoryLimits.textMaxLength },
          memoryKind: { enum: ZMemoryKind.options, default: "fact" },
          confidence: { minimum: 0, maximum: 1, default: memoryLimits.defaultConfidence },
          idempotencyKey: { type: "string", minLength: 1, maxLength: 255 },
        },
      });
      expect(Object.keys(tool.recall!.inputSchema.properties!)).toEqual(["query", "limit", "contextMode"]);
      expect(tool.reinforce!.inputSchema).toMatchObject({ required: ["id"], properties: { reason: { maxLength: memoryLimits.reasonMaxLength } } });
      expect(tool.send_event!.inputSchema).toMatchObject({ required: ["type", "text"], properties: { type: { pattern: expect.any(String) } } });
      expect(tool.recall!.outputSchema).toMatchObject({ type: "object", required: ["memories"] });
      expect(tool.provenance!.outputSchema).toMatchObject({ type: "object", required: ["memory", "source", "history", "nextHistoryCursor"] });
      const hints = Object.fromEntries(tools.map((listed) => [listed.name, [listed.annotations?.readOnlyHint ?? false, listed.annotations?.destructiveHint ?? true]]));
      expect(hints).toEqual({
        remember: [false, false],
        recall: [true, true],
        reinforce: [false, false],
        suppress: [false, true],
        restore: [false, false],
        forget: [false, true],
        provenance: [true, true],
        send_event: [false, false],
      });
      for (const listed of tools) expect(listed.description?.length, listed.name).toBeGreaterThan(40);
    });

    it("lists only the tools each scope allows", async () => {
      const orgId = await server.newOrg();
      const cases: Array<[TScope[], string[]]> = [
        [["memory:read"], ["recall"]],
        [["memory:write"], ["remember", "send_event"]],
        [["memory:control"], ["reinforce", "suppress", "restore", "provenance"]],
        [["memory:delete"], ["forget"]],
        [["inference:chat"], []],
      ];
      const listed = await Promise.all(
        cases.map(async ([scopes]) => {
          const client = await open(await server.newToken(orgId, { scopes }));
          return (await client.listTools()).tools.map((tool) => tool.name);
        }),
      );
      expect(listed).toEqual(cases.map(([, names]) => names));
    });

    it("answers a call to a tool the token may not use with the HTTP API's insufficient_scope, naming the scope, whatever the arguments", async () => {
      const orgId = await server.newOrg();
      const readOnly = await server.newToken(orgId, { scopes: ["memory:read"] });
      const client = await open(readOnly);
      const needed = { remember: "memory:write", reinforce: "memory:control", suppress: "memory:control", restore: "memory:control", forget: "memory:delete", provenance: "memory:control", send_event: "memory:write" };
      for (const [name, scope] of Object.entries(needed)) {
        expect(toolError(await call(client, name)).error, name).toEqual({
          type: "authorization_error",
          code: "insufficient_scope",
          message: `This token lacks the scope ${scope}, which this operation requires.`,
          param: null,
        });
      }
      const overHttp = await http("/v1/memory", readOnly, { text: "Written without the scope." });
      expect(overHttp.status).toBe(403);
      expect(toolError(await call(client, "remember", { text: "Written without the scope." }))).toEqual(overHttp.body);
    });
  });

  describe(`MCP over ${transport}: each tool answers as its route`, () => {
    it("remember, recall, reinforce, suppress, restore, provenance and forget succeed; recall no longer finds a suppressed or forgotten memory", async () => {
      const { token } = await server.newTenant();
      const client = await open(token);
      const remembered = await call(client, "remember", { text: "Payments deploys with make release after CI is green.", subject: "payments", memoryKind: "procedure", confidence: 0.9 });
      const { memory } = structured(remembered);
      expect(memory).toMatchObject({ state: "durable", memoryKind: "procedure", subject: "payments", confidence: 0.9, agent: null, environment: "production", source: "api" });
      expect(JSON.parse(texts(remembered)[0]!)).toEqual({ memory });
      expect(remembered._meta).toBeUndefined();

      const question = "how does payments deploy?";
      const recalled = await call(client, "recall", { query: question });
      const [block, ids] = texts(recalled);
      expect(block).toMatch(/^What the organization knows/);
      expect(block).toContain("[procedure about payments, today, confidence 0.90] Payments deploys with make release");
      expect(ids).toBe(`Memory ids, most useful first: ${memory.id}`);
      expect(structured(recalled).memories).toEqual([{ ...memory, score: expect.any(Number) }]);
      expect(texts(await call(client, "recall", { query: question, contextMode: "compact", limit: 1 }))[0]).toContain("- payments: Payments deploys");

      expect(structured(await call(client, "reinforce", { id: memory.id, reason: "answered on-call", actor: "alice" })).memory).toMatchObject({ state: "durable", reinforcementCount: 1 });
      expect(structured(await call(client, "suppress", { id: memory.id, reason: "outdated" })).memory.state).toBe("suppressed");
      const hidden = await call(client, "recall", { query: question });
      expect(structured(hidden).memories).toEqual([]);
      expect(texts(hidden)).toEqual(["The organization has no stored memory relevant to this request."]);
      expect(structured(await call(client, "restore", { id: memory.id })).memory.state).toBe("durable");
      expect(await recalledIds(client, question)).toEqual([memory.id]);

      const provenance = structured(await call(client, "provenance", { id: memory.id }));
      expect(provenance.history.map((entry: { action: string }) => entry.action)).toEqual(["created", "reinforced", "suppressed", "restored"]);
      expect(provenance.history[1]).toMatchObject({ actor: "alice", reason: "answered on-call" });
      expect(provenance).toEqual((await http(`/v1/memory/${memory.id}/provenance`, token, undefined, "GET")).body);

      expect(structured(await call(client, "forget", { id: memory.id })).memory.state).toBe("tombstoned");
      expect(await recalledIds(client, question)).toEqual([]);
      expect(structured(await call(client, "forget", { id: memory.id })).memory.state).toBe("tombstoned");
      expect(structured(await call(client, "provenance", { id: memory.id })).history).toHaveLength(5);
      // A page of the history at a time, as the route answers it.
      const first = structured(await call(client, "provenance", { id: memory.id, historyLimit: 3 }));
      const rest = structured(await call(client, "provenance", { id: memory.id, historyCursor: first.nextHistoryCursor }));
      expect([first.history.length, rest.history.length, rest.nextHistoryCursor]).toEqual([3, 2, null]);
      expect(first).toEqual((await http(`/v1/memory/${memory.id}/provenance?historyLimit=3`, token, undefined, "GET")).body);
    });

    it("send_event stores the event once, as the events route does", async () => {
      const { token } = await server.newTenant();
      const client = await open(token);
      const event = { type: "incident.resolved", text: "INC-42 resolved: expired TLS certificate on payments-api, rotated.", source: "pagerduty", subject: "INC-42" };
      const first = structured(await call(client, "send_event", event));
      expect(first).toMatchObject({ replayed: false, keySource: "derived", environment: "production", triage: { rule: "incident.resolved", outcome: "candidate" }, candidateIds: [expect.any(String)] });
      expect(first.workflowChanges).toEqual([{ workflow: "incident", subject: "INC-42", track: null, from: null, to: "resolved" }]);
      expect(structured(await call(client, "send_event", event))).toEqual({ ...first, replayed: true });
      const overHttp = await http("/v1/memory/events", token, event);
      expect(overHttp.body).toEqual({ ...first, replayed: true });
    });

    it("remember and send_event take an idempotency key and replay a retry, sharing the routes' keys", async () => {
      const { token } = await server.newTenant();
      const client = await open(token);
      const first = await call(client, "remember", { text: "The billing cron runs at 02:00 UTC.", idempotencyKey: "billing-cron-1" });
      const retry = await call(client, "remember", { text: "The billing cron runs at 02:00 UTC.", idempotencyKey: "billing-cron-1" });
      expect(structured(retry)).toEqual(structured(first));
      expect(retry._meta).toEqual({ idempotentReplayed: true });
      expect(toolError(await call(client, "remember", { text: "Something else.", idempotencyKey: "billing-cron-1" })).error.code).toBe("idempotency_key_reused");

      const overHttp = await rawRequest(server.url, "/v1/memory", { token, body: JSON.stringify({ text: "Written over HTTP first." }), headers: { "idempotency-key": "shared-key" } });
      expect(structured(await call(client, "remember", { text: "Written over HTTP first.", idempotencyKey: "shared-key" }))).toEqual(overHttp.body);

      const event = { type: "deploy.completed", text: "api v2 deployed", subject: "api", idempotencyKey: "deploy-api-v2" };
      const sent = structured(await call(client, "send_event", event));
      expect(sent).toMatchObject({ replayed: false, keySource: "header", idempotencyKey: "deploy-api-v2" });
      expect(structured(await call(client, "send_event", event))).toEqual({ ...sent, replayed: true });
      expect(toolError(await call(client, "send_event", { ...event, text: "api v3 deployed" })).error.code).toBe("idempotency_key_reused");
    });

    it("answers each tool's errors with the HTTP API's error body, code and message", async () => {
      const { token } = await server.newTenant();
      const client = await open(token);
      const id = structured(await call(client, "remember", { text: "A memory to get wrong." })).memory.id as string;
      const same = async (name: string, args: Record<string, unknown>, path: string, body?: object, method = "POST") => {
        const overHttp = await http(path, token, body, method);
        expect(overHttp.status, `${name} ${JSON.stringify(args)}`).toBeGreaterThanOrEqual(400);
        expect(toolError(await call(client, name, args)), `${name} ${JSON.stringify(args)}`).toEqual(overHttp.body);
        return overHttp.body.error.code as string;
      };
      expect(await same("remember", { text: "   " }, "/v1/memory", { text: "   " })).toBe("invalid_parameter");
      expect(await same("remember", { text: "x", colour: "red" }, "/v1/memory", { text: "x", colour: "red" })).toBe("unknown_parameter");
      expect(await same("remember", { text: "x", memoryKind: "rumour" }, "/v1/memory", { text: "x", memoryKind: "rumour" })).toBe("invalid_parameter");
      expect(await same("recall", {}, "/v1/memory/recall", {})).toBe("missing_parameter");
      expect(await same("recall", { query: "x", limit: 0 }, "/v1/memory/recall", { query: "x", limit: 0 })).toBe("invalid_parameter");
      expect(await same("reinforce", { id: "mem_missing" }, "/v1/memory/mem_missing/reinforce", {})).toBe("memory_not_found");
      const longReason = "r".repeat(memoryLimits.reasonMaxLength + 1);
      expect(await same("reinforce", { id, reason: longReason }, `/v1/memory/${id}/reinforce`, { reason: longReason })).toBe("invalid_parameter");
      expect(await same("restore", { id }, `/v1/memory/${id}/restore`, {})).toBe("invalid_state_transition");
      structured(await call(client, "suppress", { id }));
      expect(await same("suppress", { id }, `/v1/memory/${id}/suppress`, {})).toBe("invalid_state_transition");
      expect(await same("provenance", { id: "mem_missing" }, "/v1/memory/mem_missing/provenance", undefined, "GET")).toBe("memory_not_found");
      expect(await same("forget", { id: "mem_missing" }, "/v1/memory/mem_missing", undefined, "DELETE")).toBe("memory_not_found");
      expect(await same("send_event", { type: "Deploy", text: "x" }, "/v1/memory/events", { type: "Deploy", text: "x" })).toBe("invalid_parameter");
      expect(await same("send_event", { type: "deploy.completed" }, "/v1/memory/events", { type: "deploy.completed" })).toBe("missing_parameter");

      // Arguments the routes take elsewhere (the path's id, the Idempotency-Key header) answer in the same terms.
      expect(toolError(await call(client, "forget")).error).toMatchObject({ code: "missing_parameter", param: "id" });
      expect(toolError(await call(client, "remember", { text: "x", idempotencyKey: "" })).error).toMatchObject({ code: "invalid_parameter", param: "idempotencyKey" });
      expect(toolError(await call(client, "recall", { query: "x", includeContext: false })).error).toMatchObject({ code: "unknown_parameter", param: "includeContext" });
    });

    it("answers an unknown tool with a protocol error", async () => {
      const client = await open((await server.newTenant()).token);
      await expect(client.callTool({ name: "teleport", arguments: {} })).rejects.toThrow(/No tool named "teleport"/);
    });
  });

  describe(`MCP over ${transport}: agents and environments`, () => {
    it("an agent's connection recalls its own and the organization's shared memories, never another agent's", async () => {
      const { token } = await server.newTenant();
      const [alpha, beta, organization] = await Promise.all([open(token, { agent: "alpha" }), open(token, { agent: "beta" }), open(token)]);
      const own = structured(await call(alpha, "remember", { text: "Alpha drains the ingest queue before restarting it." })).memory;
      const shared = structured(await call(organization, "remember", { text: "The ingest queue runs in eu-west-1." })).memory;
      expect(own.agent).toBe("alpha");
      expect(shared.agent).toBeNull();
      expect((await recalledIds(alpha, "ingest queue")).sort()).toEqual([own.id, shared.id].sort());
      expect(await recalledIds(beta, "ingest queue")).toEqual([shared.id]);
      for (const name of ["reinforce", "suppress", "provenance", "forget"]) {
        expect(toolError(await call(beta, name, { id: own.id })).error.code, name).toBe("memory_not_found");
      }
      expect(structured(await call(alpha, "provenance", { id: own.id })).memory.state).toBe("durable");
    });

    it("a Test token's recall never returns a Production memory, nor reaches it by id", async () => {
      const orgId = await server.newOrg();
      const [production, test] = await Promise.all([open(await server.newToken(orgId)), open(await server.newToken(orgId, { environment: "test" }))]);
      const productionMemory = structured(await call(production, "remember", { text: "Database failover in production is manual: page the DBA." })).memory;
      expect(await recalledIds(test, "database failover")).toEqual([]);
      expect(toolError(await call(test, "provenance", { id: productionMemory.id })).error.code).toBe("memory_not_found");
      expect(toolError(await call(test, "forget", { id: productionMemory.id })).error.code).toBe("memory_not_found");
      const testMemory = structured(await call(test, "remember", { text: "Database failover in test is automatic." })).memory;
      expect(testMemory.environment).toBe("test");
      expect(await recalledIds(test, "database failover")).toEqual([testMemory.id]);
      expect(await recalledIds(production, "database failover")).toEqual([productionMemory.id]);
    });

    it("does not offer send_event inside an agent's boundary (events belong to the organization) and refuses a call to it", async () => {
      const client = await open((await server.newTenant()).token, { agent: "alpha" });
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(allToolNames.filter((name) => name !== "send_event"));
      expect(toolError(await call(client, "send_event", { type: "deploy.completed", text: "x" })).error).toMatchObject({ code: "invalid_parameter", message: expect.stringContaining("no agent form") });
    });
  });

  describe(`MCP over ${transport}: rate limits and refusals`, () => {
    // Small limits, and a clock 5 s into a minute so that no window ends during the test.
    let limited: TestServer;
    beforeAll(async () => {
      limited = await startTestServer({ rateLimits: parseRateLimitSetting("*.memory=4,*.events=2"), now: () => new Date(Date.UTC(2030, 0, 1, 12, 0, 5)) });
    });
    afterAll(() => limited?.stop());

    it("counts each tool call once in its route's group, shared with the HTTP routes; over the limit, the route's 429 as a tool error", async () => {
      const { token } = await limited.newTenant();
      const client = await openOn(limited, token);
      const http = (path: string, token: string, body?: object) => httpOn(limited, path, token, body);
      await client.listTools();
      expect((await http("/v1/memory/recall", token, { query: "anything" })).status).toBe(200);
      structured(await call(client, "remember", { text: "Counted in the memory group." }));
      expect(toolError(await call(client, "recall", { query: "" })).error.code).toBe("invalid_parameter");
      structured(await call(client, "recall", { query: "anything" }));
      const refused = toolError(await call(client, "recall", { query: "anything" }));
      expect(refused).toEqual({
        error: { type: "rate_limit_error", code: "rate_limit_exceeded", message: "Rate limit of 4 memory requests per minute exceeded; retry after 55 s.", param: null, retry_after: 55 },
      });
      expect(await http("/v1/memory/recall", token, { query: "anything" })).toMatchObject({ status: 429, body: refused });

      // Events count in their own group.
      structured(await call(client, "send_event", { type: "ci.run.started", text: "build 1 started" }));
      structured(await call(client, "send_event", { type: "ci.run.started", text: "build 2 started" }));
      expect(toolError(await call(client, "send_event", { type: "ci.run.started", text: "build 3 started" })).error).toMatchObject({ code: "rate_limit_exceeded", retry_after: 55 });
    });

    it("refuses a bad token at connection", async () => {
      await expect(connect(server.url, `acm_${"x".repeat(43)}`)).rejects.toThrow(/invalid_api_key/);
    });
  });
}
