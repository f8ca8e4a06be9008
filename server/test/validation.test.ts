import { ZErrorBody } from "@engram/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, startTestServer, type TestServer } from "@engram/test-support";

let server: TestServer;
let orgId: string;
let token: string;
let memoryId: string;

beforeAll(async () => {
  server = await startTestServer();
  ({ orgId, token } = await server.newTenant());
  const created = await rawRequest(server.url, "/v1/memory", { token, body: JSON.stringify({ text: "The one stored memory." }) });
  memoryId = created.body.memory.id;
});
afterAll(() => server?.stop());

/** Every rejected request leaves the organization with exactly the memory stored in beforeAll, unchanged. */
async function expectNothingChanged() {
  const rows = await server.db.memory.findMany({ where: { orgId } });
  expect(rows.map((r) => [r.id, r.text, r.state, r.reinforcementCount])).toEqual([[memoryId, "The one stored memory.", "durable", 0]]);
  expect(await server.db.memoryHistory.count({ where: { memoryId } })).toBe(1);
}

type Case = [description: string, body: string, code: string, param: string | null];

const encodeCases: Case[] = [
  ["text missing", JSON.stringify({ subject: "x" }), "missing_parameter", "text"],
  ["text of the wrong type", JSON.stringify({ text: 42 }), "invalid_parameter", "text"],
  ["text empty", JSON.stringify({ text: "" }), "invalid_parameter", "text"],
  ["text only whitespace", JSON.stringify({ text: "   " }), "invalid_parameter", "text"],
  ["text over 8,000 characters", JSON.stringify({ text: "a".repeat(8001) }), "invalid_parameter", "text"],
  ["subject of the wrong type", JSON.stringify({ text: "x", subject: 7 }), "invalid_parameter", "subject"],
  ["subject empty", JSON.stringify({ text: "x", subject: "" }), "invalid_parameter", "subject"],
  ["subject over 200 characters", JSON.stringify({ text: "x", subject: "s".repeat(201) }), "invalid_parameter", "subject"],
  ["unknown memoryKind", JSON.stringify({ text: "x", memoryKind: "gossip" }), "invalid_parameter", "memoryKind"],
  ["memoryKind of the wrong type", JSON.stringify({ text: "x", memoryKind: 1 }), "invalid_parameter", "memoryKind"],
  ["confidence below 0", JSON.stringify({ text: "x", confidence: -0.1 }), "invalid_parameter", "confidence"],
  ["confidence above 1", JSON.stringify({ text: "x", confidence: 1.5 }), "invalid_parameter", "confidence"],
  ["confidence as a string", JSON.stringify({ text: "x", confidence: "high" }), "invalid_parameter", "confidence"],
  ["an unknown field", JSON.stringify({ text: "x", tags: ["a"] }), "unknown_parameter", "tags"],
  ["a body that is an array", JSON.stringify([{ text: "x" }]), "invalid_parameter", null],
  ["a body that is a string", JSON.stringify("remember this"), "invalid_parameter", null],
  ["malformed JSON", '{"text": "x"', "invalid_json", null],
];

const retrieveCases: Case[] = [
  ["query missing", JSON.stringify({ limit: 3 }), "missing_parameter", "query"],
  ["query empty", JSON.stringify({ query: "" }), "invalid_parameter", "query"],
  ["query over 2,000 characters", JSON.stringify({ query: "q".repeat(2001) }), "invalid_parameter", "query"],
  ["limit 0", JSON.stringify({ query: "x", limit: 0 }), "invalid_parameter", "limit"],
  ["limit above 100", JSON.stringify({ query: "x", limit: 101 }), "invalid_parameter", "limit"],
  ["limit not an integer", JSON.stringify({ query: "x", limit: 2.5 }), "invalid_parameter", "limit"],
  ["includeContext not a boolean", JSON.stringify({ query: "x", includeContext: "yes" }), "invalid_parameter", "includeContext"],
  ["unknown contextMode", JSON.stringify({ query: "x", contextMode: "verbose" }), "invalid_parameter", "contextMode"],
  ["an unknown field", JSON.stringify({ query: "x", filter: {} }), "unknown_parameter", "filter"],
];

const controlCases: Case[] = [
  ["reason empty", JSON.stringify({ reason: "" }), "invalid_parameter", "reason"],
  ["reason of the wrong type", JSON.stringify({ reason: 5 }), "invalid_parameter", "reason"],
  ["actor over 200 characters", JSON.stringify({ actor: "a".repeat(201) }), "invalid_parameter", "actor"],
  ["an unknown field", JSON.stringify({ reason: "x", force: true }), "unknown_parameter", "force"],
];

function expectError(res: { status: number; body: unknown }, status: number, code: string, param: string | null) {
  expect(res.status).toBe(status);
  const { error } = ZErrorBody.parse(res.body);
  expect(error).toMatchObject({ type: "invalid_request_error", code });
  if (param !== null) expect(error.param).toBe(param);
  expect(error.message.length).toBeGreaterThan(5);
}

describe("encode validation", () => {
  it.each(encodeCases)("rejects %s", async (_description, body, code, param) => {
    expectError(await rawRequest(server.url, "/v1/memory", { token, body }), 400, code, param);
    expectError(await rawRequest(server.url, "/v1/memory/agents/bot", { token, body }), 400, code, param);
    await expectNothingChanged();
  });

  it("rejects a body that is not JSON with 415", async () => {
    const res = await rawRequest(server.url, "/v1/memory", { token, body: "text=remember", contentType: "text/plain" });
    expectError(res, 415, "unsupported_media_type", null);
    const form = await rawRequest(server.url, "/v1/memory", { token, body: "text=x", contentType: "application/x-www-form-urlencoded" });
    expectError(form, 415, "unsupported_media_type", null);
    await expectNothingChanged();
  });

  it("rejects a body over 1 MiB with 413", async () => {
    const res = await rawRequest(server.url, "/v1/memory", { token, body: JSON.stringify({ text: "a".repeat(1_100_000) }) });
    expectError(res, 413, "payload_too_large", null);
    await expectNothingChanged();
  });

  it("rejects an encode with no body at all", async () => {
    expectError(await rawRequest(server.url, "/v1/memory", { token }), 400, "missing_parameter", "text");
    await expectNothingChanged();
  });
});

describe("retrieve validation", () => {
  it.each(retrieveCases)("rejects %s", async (_description, body, code, param) => {
    for (const path of ["/v1/memory/retrieve", "/v1/memory/recall", "/v1/memory/search", "/v1/memory/agents/bot/retrieve"]) {
      expectError(await rawRequest(server.url, path, { token, body }), 400, code, param);
    }
  });
});

describe("control validation", () => {
  it.each(controlCases)("rejects %s", async (_description, body, code, param) => {
    for (const verb of ["reinforce", "suppress", "restore"]) {
      expectError(await rawRequest(server.url, `/v1/memory/${memoryId}/${verb}`, { token, body }), 400, code, param);
    }
    await expectNothingChanged();
  });

  it("accepts a control request without a body", async () => {
    const res = await rawRequest(server.url, `/v1/memory/${memoryId}/provenance`, { token, method: "GET" });
    expect(res.status).toBe(200);
  });
});

describe("unknown routes", () => {
  it("answer 404 route_not_found in the documented shape", async () => {
    const res = await rawRequest(server.url, "/v1/memory/not/a/route/at/all", { token, body: "{}" });
    expectError(res, 404, "route_not_found", null);
  });
});
