import { DEFAULT_MODEL_ID, eventLimits, inferenceLimits, memoryLimits, memoryScopes, ZErrorBody } from "@engram/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, startTestServer, type TestServer } from "@engram/test-support";

/**
 * Every bounded string field at its limit and one past it, and unicode that is valid but unusual, through the
 * routes that store or read it: the limit is accepted and comes back exactly as sent, one past it is refused
 * naming the field and stores nothing.
 */

let server: TestServer;
let orgId: string;
let token: string;

beforeAll(async () => {
  server = await startTestServer({ rateLimits: "off" });
  orgId = await server.newOrg();
  token = await server.newToken(orgId, { scopes: [...memoryScopes, "inference:chat"] });
});
afterAll(() => server?.stop());

const post = (path: string, body: unknown) => rawRequest(server.url, path, { token, body: JSON.stringify(body) });

async function storedCounts() {
  return { memories: await server.db.memory.count({ where: { orgId } }), events: await server.db.businessEvent.count({ where: { orgId } }) };
}

interface Bound {
  route: string;
  field: string;
  max: number;
  body: (value: string) => Record<string, unknown>;
}

const bounds: Bound[] = [
  { route: "/v1/memory", field: "text", max: memoryLimits.textMaxLength, body: (text) => ({ text }) },
  { route: "/v1/memory", field: "subject", max: memoryLimits.subjectMaxLength, body: (subject) => ({ text: "x", subject }) },
  { route: "/v1/memory/retrieve", field: "query", max: memoryLimits.queryMaxLength, body: (query) => ({ query }) },
  { route: "/v1/memory/events", field: "type", max: eventLimits.typeMaxLength, body: (tail) => ({ type: `a.${tail.slice(2)}`, text: "x" }) },
  { route: "/v1/memory/events", field: "text", max: eventLimits.textMaxLength, body: (text) => ({ type: "ci.run", text }) },
  { route: "/v1/memory/events", field: "source", max: eventLimits.sourceMaxLength, body: (source) => ({ type: "ci.run", text: "x", source }) },
  { route: "/v1/memory/events", field: "subject", max: eventLimits.subjectMaxLength, body: (subject) => ({ type: "ci.run", text: "x", subject }) },
  { route: "/v1/chat/completions", field: "model", max: 200, body: (model) => ({ model, messages: [{ role: "user", content: "hi" }] }) },
  { route: "/v1/chat/completions", field: "messages.0.name", max: inferenceLimits.maxNameLength, body: (name) => ({ model: DEFAULT_MODEL_ID, messages: [{ role: "user", content: "hi", name }] }) },
  { route: "/v1/chat/completions", field: "user", max: 256, body: (user) => ({ model: DEFAULT_MODEL_ID, messages: [{ role: "user", content: "hi" }], user }) },
];

describe.each(bounds)("$route $field (at most $max)", ({ route, field, max, body }) => {
  it("refuses one character past the limit, naming the field, and stores nothing", async () => {
    const before = await storedCounts();
    const res = await post(route, body("z".repeat(max + 1)));
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(ZErrorBody.parse(res.body).error).toMatchObject({ code: "invalid_parameter", param: field });
    expect(await storedCounts()).toEqual(before);
  });

  it("accepts the limit", async () => {
    const res = await post(route, body("z".repeat(max)));
    // The model field is checked against the advertised model after its length.
    if (field === "model") expect(res.body.error?.code).toBe("model_not_found");
    else expect([200, 201], JSON.stringify(res.body)).toContain(res.status);
  });
});

/** Valid but unusual text: each is stored and returned exactly as sent, on both backends. */
const unusual: Record<string, string> = {
  "astral emoji and a ZWJ sequence": "🧠 remembers 👩‍👩‍👧‍👦",
  "combining marks (not normalised)": "cafe\u0301 vs caf\u00e9",
  "right-to-left with isolates": "שלום \u2067عالم\u2069 world",
  // Inside the text: leading and trailing ones are trimmed like other white space (U+FEFF is white space to trim()).
  "BOM and zero-width characters": "a\ufeffb\u200bc\u200dd\u2060e",
  "line and paragraph separators": "one\u2028two\u2029three",
  "noncharacters and private use": "x\ufffey\uffffz\ue000",
  "C0 and C1 controls other than NUL": "bell\u0007 esc\u001b del\u007f c1\u0085",
  "surrogate pair at the very end": `${"a".repeat(memoryLimits.subjectMaxLength - 2)}😀`,
};

describe("unusual but valid unicode", () => {
  it.each(Object.entries(unusual))("%s round-trips through encode, provenance, retrieve and events", async (_name, text) => {
    const encoded = await post("/v1/memory", { text, subject: text.slice(0, memoryLimits.subjectMaxLength) });
    expect(encoded.status, JSON.stringify(encoded.body)).toBe(201);
    expect(encoded.body.memory.text).toBe(text);

    const id = encoded.body.memory.id as string;
    const provenance = await rawRequest(server.url, `/v1/memory/${id}/provenance`, { token, method: "GET" });
    expect(provenance.body.memory.text).toBe(text);
    expect(provenance.body.memory.subject).toBe(text.slice(0, memoryLimits.subjectMaxLength));

    const retrieved = await post("/v1/memory/retrieve", { query: text, limit: 100 });
    expect(retrieved.status).toBe(200);

    const event = await post("/v1/memory/events", { type: "note.added", text, subject: text, metadata: { [text]: text } });
    expect(event.status, JSON.stringify(event.body)).toBe(201);
    const stored = await server.db.businessEvent.findUniqueOrThrow({ where: { id: event.body.eventId } });
    expect(stored.text).toBe(text);
  });
});
