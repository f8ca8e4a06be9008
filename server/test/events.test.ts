import { ZErrorBody, ZEventResult } from "@engram/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, rawRequest, startServerOn, startTestServer, type TestServer } from "@engram/test-support";
import { MAX_RECORD_BODY_BYTES } from "../src/http/body";
import { escapedJsonString } from "./hostile/raw-http";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

const resolvedIncident = {
  type: "incident.resolved",
  text: "INC-42 resolved: payments-api 5xx spike caused by an expired TLS certificate; rotated it and added an expiry alert.",
  source: "pagerduty",
  subject: "INC-42",
  metadata: { service: "payments-api", severity: "sev2", url: "https://pagerduty.example.com/incidents/42" },
};

async function post(token: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await rawRequest(server.url, "/v1/memory/events", { token, body: typeof body === "string" ? body : JSON.stringify(body), headers });
  return { ...res, result: res.status === 201 ? ZEventResult.parse(res.body) : undefined };
}

const stored = async (orgId: string) => ({
  events: await server.db.businessEvent.count({ where: { orgId } }),
  memories: await server.db.memory.count({ where: { orgId } }),
});

describe("ingesting an event", () => {
  it("stores the event, a linked candidate and the workflow state, and reports all of it", async () => {
    const { orgId, token } = await server.newTenant();
    const { status, result } = await post(token, resolvedIncident);
    expect(status).toBe(201);
    expect(result).toMatchObject({
      replayed: false,
      keySource: "derived",
      environment: "production",
      effects: { productionAutomation: true, notifications: true, externalWrites: true },
      records: { sourceKind: "developer_event", businessEvent: { type: "incident.resolved", subject: "INC-42", source: "pagerduty" } },
      triage: { rule: "incident.resolved", outcome: "candidate" },
      workflowChanges: [{ workflow: "incident", subject: "INC-42", track: null, from: null, to: "resolved" }],
    });
    expect(result!.idempotencyKey).toMatch(/^derived:pagerduty:incident\.resolved:[0-9a-f]{32}$/);
    expect(result!.candidateIds).toHaveLength(1);

    const event = await server.db.businessEvent.findUniqueOrThrow({ where: { id: result!.eventId } });
    expect(event).toMatchObject({ orgId, environment: "production", type: "incident.resolved", effectsSuppressed: false, keySource: "derived" });
    expect(JSON.parse(event.metadata!)).toEqual(resolvedIncident.metadata);
    const candidate = await server.db.memory.findUniqueOrThrow({ where: { id: result!.candidateIds[0]! } });
    expect(candidate).toMatchObject({ state: "candidate", source: "developer_event", eventId: event.id, memoryKind: "event", confidence: 0.9, subject: "INC-42" });
    const workflow = await server.db.workflowState.findFirstOrThrow({ where: { orgId, workflow: "incident", subject: "INC-42" } });
    expect(workflow).toMatchObject({ state: "resolved", lastEventId: event.id });
  });

  it("needs only type and text", async () => {
    const { token } = await server.newTenant();
    const { status, result } = await post(token, { type: "decision.recorded", text: "We standardise on Postgres 15 for new services." });
    expect(status).toBe(201);
    expect(result).toMatchObject({ triage: { outcome: "candidate" }, workflowChanges: [], records: { businessEvent: { subject: null, source: null } } });
    expect(result!.idempotencyKey).toMatch(/^derived:unknown:decision\.recorded:/);
  });

  it("stores and counts events of unknown types without making candidates", async () => {
    const { orgId, token } = await server.newTenant();
    for (const text of ["first", "second"]) {
      const { result } = await post(token, { type: "custom.thing.happened", text, subject: "x" });
      expect(result).toMatchObject({ triage: { rule: null, outcome: "unknown_type" }, candidateIds: [], workflowChanges: [] });
    }
    await post(token, { type: "pr.opened", text: "PR 7 opened", subject: "repo#7" });
    expect(await server.services.events.countByType(orgId)).toEqual([
      { environment: "production", type: "custom.thing.happened", known: false, count: 2 },
      { environment: "production", type: "pr.opened", known: true, count: 1 },
    ]);
    expect(await server.db.memory.count({ where: { orgId } })).toBe(0);
  });

  it("records events that drive workflows without a candidate when the rule says so", async () => {
    const { token } = await server.newTenant();
    const { result } = await post(token, { type: "pr.opened", text: "PR 7 opened", subject: "repo#7" });
    expect(result).toMatchObject({ triage: { rule: "pr.opened", outcome: "recorded" }, candidateIds: [] });
  });
});

describe("workflow state", () => {
  it("follows incidents, pull requests and deployments per subject", async () => {
    const { orgId, token } = await server.newTenant();
    const changes = async (body: object) => (await post(token, body)).result!.workflowChanges;

    expect(await changes({ type: "incident.opened", text: "INC-7 opened", subject: "INC-7" })).toEqual([{ workflow: "incident", subject: "INC-7", track: null, from: null, to: "open" }]);
    expect(await changes({ type: "incident.resolved", text: "INC-7 resolved", subject: "INC-7" })).toEqual([{ workflow: "incident", subject: "INC-7", track: null, from: "open", to: "resolved" }]);
    expect(await changes({ type: "pr.opened", text: "PR 12 opened", subject: "api#12" })).toMatchObject([{ from: null, to: "open" }]);
    expect(await changes({ type: "pr.merged", text: "PR 12 merged", subject: "api#12" })).toMatchObject([{ from: "open", to: "merged" }]);

    const deploy = (version: string, environment: string) => ({ type: "deploy.completed", text: `payments-api ${version} deployed to ${environment}`, subject: "payments-api", metadata: { version, environment } });
    expect(await changes(deploy("v1.4.0", "staging"))).toEqual([{ workflow: "deployment", subject: "payments-api", track: "staging", from: null, to: "deployed" }]);
    await changes(deploy("v1.4.0", "prod-eu"));
    await changes(deploy("v1.5.0", "staging"));

    const deployments = (await server.services.events.workflows(orgId, "production")).filter((w) => w.workflow === "deployment");
    expect(deployments.map((w) => [w.track, w.state, w.details.version])).toEqual([
      ["prod-eu", "deployed", "v1.4.0"],
      ["staging", "deployed", "v1.5.0"],
    ]);
  });

  it("never routes by metadata.environment", async () => {
    const orgId = await server.newOrg();
    const token = await server.newToken(orgId, { environment: "production" });
    const { result } = await post(token, { ...resolvedIncident, metadata: { environment: "test" } });
    expect(result!.environment).toBe("production");
    expect(await server.db.businessEvent.count({ where: { orgId, environment: "test" } })).toBe(0);
  });
});

describe("idempotency", () => {
  it("replays a retry with the same Idempotency-Key and refuses a different event under it", async () => {
    const { orgId, token } = await server.newTenant();
    const first = await post(token, resolvedIncident, { "idempotency-key": "pd-42" });
    const retry = await post(token, resolvedIncident, { "idempotency-key": "pd-42" });
    expect(first.result).toMatchObject({ keySource: "header", idempotencyKey: "pd-42", replayed: false });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.result).toEqual({ ...first.result, replayed: true });

    const conflict = await post(token, { ...resolvedIncident, text: "A different event." }, { "idempotency-key": "pd-42" });
    expect(conflict.status).toBe(409);
    expect(ZErrorBody.parse(conflict.body).error).toMatchObject({ code: "idempotency_key_reused", param: "Idempotency-Key" });
    expect(await stored(orgId)).toEqual({ events: 1, memories: 1 });
  });

  it("derives the same key whatever the key order and JSON whitespace", async () => {
    const { orgId, token } = await server.newTenant();
    const first = await post(token, resolvedIncident);
    const reordered = `{ "metadata": {"url": "${resolvedIncident.metadata.url}", "severity":"sev2", "service": "payments-api"},
      "subject": "INC-42", "source": "pagerduty", "text": ${JSON.stringify(resolvedIncident.text)}, "type": "incident.resolved" }`;
    const again = await post(token, reordered);
    expect(again.result).toMatchObject({ replayed: true, eventId: first.result!.eventId, idempotencyKey: first.result!.idempotencyKey });
    const different = await post(token, { ...resolvedIncident, metadata: { ...resolvedIncident.metadata, severity: "sev1" } });
    expect(different.result!.replayed).toBe(false);
    expect((await stored(orgId)).events).toBe(2);
  });

  it("ingests the same event once in each of Test, Staging and Production", async () => {
    const orgId = await server.newOrg();
    const ids = new Set<string>();
    for (const environment of ["test", "staging", "production"] as const) {
      const token = await server.newToken(orgId, { environment });
      const first = await post(token, resolvedIncident);
      const retry = await post(token, resolvedIncident);
      expect(first.result).toMatchObject({ environment, replayed: false });
      expect(retry.result).toMatchObject({ environment, replayed: true, eventId: first.result!.eventId });
      ids.add(first.result!.eventId);
    }
    expect(ids.size).toBe(3);
    expect(await stored(orgId)).toEqual({ events: 3, memories: 3 });
  });

  it.each([
    ["without a key", {}],
    ["with one Idempotency-Key", { "idempotency-key": "concurrent-1" }],
  ])("turns 20 concurrent identical posts %s into one event", async (_label, headers) => {
    const { orgId, token } = await server.newTenant();
    const results = await Promise.all(Array.from({ length: 20 }, () => post(token, resolvedIncident, headers)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(results.map((r) => r.result!.eventId)).size).toBe(1);
    expect(results.filter((r) => r.result!.replayed)).toHaveLength(19);
    expect(await stored(orgId)).toEqual({ events: 1, memories: 1 });
    expect(await server.db.workflowState.count({ where: { orgId } })).toBe(1);
  });


  it("writes one event when two servers share the database and race on the same key", async () => {
    const { orgId, token } = await server.newTenant();
    const twin = await startServerOn(server.database);
    try {
      const send = (url: string) =>
        rawRequest(url, "/v1/memory/events", { token, body: JSON.stringify(resolvedIncident), headers: { "idempotency-key": "two-servers" } });
      const results = await Promise.all(Array.from({ length: 16 }, (_, i) => send(i % 2 ? twin.url : server.url)));
      expect(results.map((r) => r.status)).toEqual(Array(16).fill(201));
      expect(new Set(results.map((r) => r.body.eventId)).size).toBe(1);
      expect(await stored(orgId)).toEqual({ events: 1, memories: 1 });
    } finally {
      await twin.close();
    }
  });
});

describe("Test and Staging", () => {
  it.each(["test", "staging"] as const)("%s creates records and candidates marked so production effects never act", async (environment) => {
    const orgId = await server.newOrg();
    const { result } = await post(await server.newToken(orgId, { environment }), resolvedIncident);
    expect(result).toMatchObject({ environment, effects: { productionAutomation: false, notifications: false, externalWrites: false } });
    expect(await server.db.businessEvent.findUniqueOrThrow({ where: { id: result!.eventId } })).toMatchObject({ environment, effectsSuppressed: true });
    expect(await server.db.memory.findUniqueOrThrow({ where: { id: result!.candidateIds[0]! } })).toMatchObject({ environment, state: "candidate" });
  });
});

describe("candidates", () => {
  it("stay out of retrieval until promoted; promotion is in provenance, back to the event", async () => {
    const { token } = await server.newTenant();
    const api = apiClient(server.url, token);
    const { result } = await post(token, resolvedIncident);
    const candidateId = result!.candidateIds[0]!;
    expect((await api.memory.retrieve({ body: { query: "expired TLS certificate" } })).body).toEqual({ memories: [] });
    expect((await api.memory.suppress({ params: { id: candidateId }, body: {} })).status).toBe(409);

    const promoted = await server.services.candidates.promote(candidateId, { actor: "admin:alice", reason: "accurate postmortem" });
    expect(promoted.state).toBe("durable");
    const found = await api.memory.retrieve({ body: { query: "expired TLS certificate" } });
    expect(found.status === 200 && found.body.memories.map((m) => m.id)).toEqual([candidateId]);

    const provenance = await api.memory.provenance({ params: { id: candidateId } });
    expect(provenance.status).toBe(200);
    if (provenance.status !== 200) return;
    expect(provenance.body.source).toMatchObject({
      kind: "developer_event",
      actor: "source:pagerduty",
      idempotencyKey: result!.idempotencyKey,
      event: { id: result!.eventId, type: "incident.resolved", source: "pagerduty", subject: "INC-42", metadata: resolvedIncident.metadata, idempotencyKey: result!.idempotencyKey },
    });
    expect(provenance.body.history.map((h) => [h.action, h.fromState, h.toState, h.actor])).toEqual([
      ["created", null, "candidate", "source:pagerduty"],
      ["promoted", "candidate", "durable", "admin:alice"],
    ]);
    await expect(server.services.candidates.promote(candidateId, { actor: "admin:alice" })).rejects.toThrow(/Only candidates/);
  });

  it("rejection tombstones a candidate and records why", async () => {
    const { token } = await server.newTenant();
    const { result } = await post(token, { type: "review.finding", text: "Reviewer flagged N+1 queries in the orders endpoint.", subject: "orders-api" });
    const rejected = await server.services.candidates.reject(result!.candidateIds[0]!, { actor: "admin:bob", reason: "already fixed" });
    expect(rejected.state).toBe("tombstoned");
    const provenance = await apiClient(server.url, token).memory.provenance({ params: { id: rejected.id } });
    expect(provenance.status === 200 && provenance.body.history.at(-1)).toMatchObject({ action: "rejected", reason: "already fixed", toState: "tombstoned" });
  });

  it("candidate write mode makes POST /v1/memory create candidates, on paid plans only", async () => {
    const orgId = await server.newOrg({ plan: "seed" });
    await server.services.organizations.setWriteMode(orgId, "candidate");
    const api = apiClient(server.url, await server.newToken(orgId));
    const created = await api.memory.encode({ body: { text: "Quarterly planning happens in week 2." } });
    expect(created.body).toMatchObject({ memory: { state: "candidate" } });
    expect((await api.memory.retrieve({ body: { query: "quarterly planning" } })).body).toEqual({ memories: [] });
    await server.services.candidates.promote((created.body as { memory: { id: string } }).memory.id, { actor: "admin:carol" });
    expect((await api.memory.retrieve({ body: { query: "quarterly planning" } })).body).toMatchObject({ memories: [{ state: "durable" }] });

    await expect(server.services.organizations.setWriteMode(await server.newOrg({ plan: "free" }), "candidate")).rejects.toThrow(/paid plan/);
    await expect(server.services.organizations.setWriteMode(await server.newOrg({ plan: "rise", founderWorkspace: true }), "candidate")).rejects.toThrow(/Founder workspaces/);
  });
});

describe("access", () => {
  it("needs memory:write and refuses agent-bound tokens", async () => {
    const orgId = await server.newOrg();
    const readOnly = await post(await server.newToken(orgId, { scopes: ["memory:read", "memory:control"] }), resolvedIncident);
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.error).toMatchObject({ code: "insufficient_scope" });
    const agentBound = await post(await server.newToken(orgId, { agents: ["triage"] }), resolvedIncident);
    expect(agentBound.status).toBe(403);
    expect(agentBound.body.error).toMatchObject({ code: "agent_not_allowed" });
    expect(await stored(orgId)).toEqual({ events: 0, memories: 0 });
  });
});

describe("metadata keys JavaScript treats specially", () => {
  const body = (metadata: string) => `{"type": "deploy.completed", "text": "payments-api v2 deployed.", "subject": "payments-api", "metadata": ${metadata}}`;

  it.each([
    ["at the top", '{"__proto__": {"admin": true}, "version": "v2"}', "metadata.__proto__"],
    ["nested", '{"build": {"__proto__": "x"}}', "metadata.build.__proto__"],
    ["inside an array", '{"steps": [{"ok": true}, {"__proto__": 1}]}', "metadata.steps.1.__proto__"],
  ])("rejects __proto__ %s with 400 invalid_parameter naming it, and stores nothing", async (_label, metadata, param) => {
    const { orgId, token } = await server.newTenant();
    const res = await post(token, body(metadata));
    expect(res.status).toBe(400);
    expect(ZErrorBody.parse(res.body).error).toMatchObject({ type: "invalid_request_error", code: "invalid_parameter", param });
    expect(await stored(orgId)).toEqual({ events: 0, memories: 0 });
  });

  it("never collapses two events that differ only in a __proto__ value", async () => {
    const { orgId, token } = await server.newTenant();
    for (const value of ["1", "2"]) expect((await post(token, body(`{"__proto__": ${value}}`))).status).toBe(400);
    expect(await stored(orgId)).toEqual({ events: 0, memories: 0 });
  });

  it("keeps constructor and prototype as ordinary data: stored, hashed into the key and shown as sent", async () => {
    const { orgId, token } = await server.newTenant();
    const metadata = { constructor: "acme-builders", build: { constructor: { prototype: { polluted: true } } }, prototype: [1] };
    const first = await post(token, body(JSON.stringify(metadata)));
    expect(first.status).toBe(201);
    const event = await server.db.businessEvent.findUniqueOrThrow({ where: { id: first.result!.eventId } });
    expect(JSON.parse(event.metadata!)).toEqual(metadata);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    // The derived key covers them: the same event replays, a different constructor value is another event.
    expect((await post(token, body(JSON.stringify(metadata)))).result).toMatchObject({ replayed: true, eventId: first.result!.eventId });
    const other = await post(token, body(JSON.stringify({ ...metadata, constructor: "other-builders" })));
    expect(other.result).toMatchObject({ replayed: false });
    expect(other.result!.idempotencyKey).not.toBe(first.result!.idempotencyKey);
    expect(await stored(orgId)).toEqual({ events: 2, memories: 2 });

    const provenance = await apiClient(server.url, token).memory.provenance({ params: { id: first.result!.candidateIds[0]! } });
    expect(provenance.status === 200 && provenance.body.source.event?.metadata).toEqual(metadata);
  });
});

describe("validation", () => {
  let orgId: string;
  let token: string;
  beforeAll(async () => {
    ({ orgId, token } = await server.newTenant());
  });

  const valid = { type: "deploy.completed", text: "Deployed.", source: "argo", subject: "api", metadata: { version: "1" } };
  const deep = { a: { b: { c: { d: { e: { f: 1 } } } } } };
  const cases: Array<[string, unknown, string, string | null]> = [
    ["type missing", { text: "x" }, "missing_parameter", "type"],
    ["text missing", { type: "deploy.completed" }, "missing_parameter", "text"],
    ["type not dotted", { ...valid, type: "deploy" }, "invalid_parameter", "type"],
    ["type in capitals", { ...valid, type: "Deploy.Completed" }, "invalid_parameter", "type"],
    ["type of the wrong type", { ...valid, type: 42 }, "invalid_parameter", "type"],
    ["type too long", { ...valid, type: `a.${"b".repeat(100)}` }, "invalid_parameter", "type"],
    ["text empty", { ...valid, text: " " }, "invalid_parameter", "text"],
    ["text too long", { ...valid, text: "t".repeat(8001) }, "invalid_parameter", "text"],
    ["source empty", { ...valid, source: "" }, "invalid_parameter", "source"],
    ["source too long", { ...valid, source: "s".repeat(101) }, "invalid_parameter", "source"],
    ["source of the wrong type", { ...valid, source: ["argo"] }, "invalid_parameter", "source"],
    ["subject too long", { ...valid, subject: "s".repeat(201) }, "invalid_parameter", "subject"],
    ["metadata an array", { ...valid, metadata: [1, 2] }, "invalid_parameter", "metadata"],
    ["metadata a string", { ...valid, metadata: "v1" }, "invalid_parameter", "metadata"],
    ["metadata too deep", { ...valid, metadata: deep }, "invalid_parameter", "metadata"],
    ["metadata too large", { ...valid, metadata: { blob: "x".repeat(17_000) } }, "invalid_parameter", "metadata"],
    ["metadata with too many keys", { ...valid, metadata: Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`k${i}`, i])) }, "invalid_parameter", "metadata"],
    ["an unknown field", { ...valid, environment: "test" }, "unknown_parameter", "environment"],
    ["malformed JSON", '{"type": "deploy.completed", ', "invalid_json", null],
  ];

  it.each(cases)("rejects %s with a clear 400 and stores nothing", async (_label, body, code, param) => {
    const res = await post(token, body);
    expect(res.status).toBe(400);
    const { error } = ZErrorBody.parse(res.body);
    expect(error).toMatchObject({ type: "invalid_request_error", code });
    if (param) expect(error.param).toBe(param);
    expect(await stored(orgId)).toEqual({ events: 0, memories: 0 });
  });

  it("accepts the largest event a client can send, every character escaped, within the events route's body limit", async () => {
    // Each character as a \uXXXX escape: six bytes of JSON for one character, the most a string can take.
    const type = `deploy.${"a".repeat(93)}`;
    const blob = "m".repeat(16 * 1024 - '{"blob":""}'.length);
    const body = `{"type":${escapedJsonString(type)},"text":${escapedJsonString("é".repeat(8000))},"source":${escapedJsonString("s".repeat(100))},"subject":${escapedJsonString("p".repeat(200))},"metadata":{"blob":${escapedJsonString(blob)}}}`;
    expect(Buffer.byteLength(body)).toBeGreaterThan(145 * 1024);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_RECORD_BODY_BYTES);
    const res = await post(token, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const event = await server.db.businessEvent.findFirstOrThrow({ where: { orgId } });
    expect(JSON.parse(event.metadata!)).toEqual({ blob });
    await server.db.businessEvent.deleteMany({ where: { orgId } });
    await server.db.memory.deleteMany({ where: { orgId } });
  });

  it("rejects a non-JSON body with 415", async () => {
    const res = await rawRequest(server.url, "/v1/memory/events", { token, body: "type=deploy.completed", contentType: "text/plain" });
    expect(res.status).toBe(415);
    expect(await stored(orgId)).toEqual({ events: 0, memories: 0 });
  });
});

