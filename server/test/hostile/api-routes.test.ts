import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { apiContract, errorCodes, type TErrorCode, ZApiFailure, ZApiValidationFailure } from "@engram/contract";
import type { AppRoute, AppRouter } from "@ts-rest/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, type SessionClient, startTestServer, type TestServer } from "@engram/test-support";
import { sendRaw, type RawResponse } from "./raw-http";
import { apiBodyRoutes, apiPathFor, apiRoutes, type CataloguedApiRoute, withField } from "./route-catalogue";
import { MAX_BODY_VALUES } from "../../src/http/input-checks";

/**
 * Every session-backed `/api` route, signed in as an owner, fed what a hostile client sends: broken and
 * non-object JSON, unicode no database stores alike, bytes that are not UTF-8, huge strings and lists, deep
 * nesting, prototype keys, wrong content types, undecodable and over-long path parameters, path variants
 * and no session at all. Each answers a documented 4xx in the `/api` failure shape (the validation shape for
 * capability rules), never a 500, the same on both backends; nothing stored changes; and the event loop is
 * never held for long (the server runs in this process, so its stalls are measured directly; the bound is
 * loose so a busy machine passes).
 */

const STALL_LIMIT_MS = 1_000;

let server: TestServer;
let owner: SessionClient & { userId: string };
let orgId: string;
let cookie: string;
/** Real ids of the organization, so variants of them can be tried. */
const ids: Record<string, string> = {};
let stalls: IntervalHistogram;
/** Another session's X-CSRF-Token, which must not pass for the owner's. */
let otherCsrfToken: string;

beforeAll(async () => {
  server = await startTestServer({ rateLimits: "off" });
  orgId = await server.newOrg({ plan: "spark" });
  owner = await server.signedIn(orgId, "owner");
  cookie = `engram_session=${await owner.sessionCookie()}`;
  const member = await server.signedIn(orgId, "member");
  otherCsrfToken = member.csrfToken!;
  const assistant = await owner.post("/api/assistants", { name: "Shared", type: "org_shared" });
  const scratch = await owner.post("/api/assistants", { name: "Scratch", type: "org_shared" });
  expect((await owner.patch("/api/organization", { writeMode: "candidate" })).status).toBe(200);
  const token = await owner.post("/api/organization/tokens", { name: "ci", scopes: ["memory:read", "memory:write"], environment: "production" });
  const memory = await rawRequest(server.url, "/v1/memory", { token: token.body.token, body: JSON.stringify({ text: "A candidate awaiting review." }) });
  expect(memory.body.memory.state).toBe("candidate");
  Object.assign(ids, { userId: member.userId, assistantId: assistant.body.assistant._id, tokenId: token.body.record.id, id: memory.body.memory.id, capabilityId: "search_memory", scratch: scratch.body.assistant._id });
  before = await snapshot();
  stalls = monitorEventLoopDelay({ resolution: 10 });
  stalls.enable();
});

afterAll(async () => {
  stalls?.disable();
  await server?.stop();
});

let before: Awaited<ReturnType<typeof snapshot>>;

/**
 * What the hostile requests must not change: the organization, its people, assistants, tokens and memories
 * (but the scratch assistant, which a known bug's test changes).
 */
async function snapshot() {
  const { db } = server;
  const where = { orgId };
  return {
    organizations: await db.organization.findMany({ orderBy: { id: "asc" } }),
    users: await db.user.findMany({ orderBy: { id: "asc" } }),
    memberships: await db.membership.findMany({ orderBy: [{ orgId: "asc" }, { userId: "asc" }] }),
    sessions: await db.session.findMany({ orderBy: { id: "asc" }, select: { id: true, userId: true, activeOrgId: true, csrfToken: true, expiresAt: true } }),
    assistants: await db.assistant.findMany({ where: { ...where, id: { not: ids.scratch } }, orderBy: { id: "asc" } }),
    assistantChanges: await db.assistantChange.count({ where: { assistantId: { not: ids.scratch } } }),
    tokens: await db.accessToken.findMany({ orderBy: { id: "asc" } }),
    memories: await db.memory.findMany({ orderBy: { id: "asc" } }),
    memoryHistory: await db.memoryHistory.count(),
  };
}

afterEach(async () => {
  expect(await snapshot()).toEqual(before);
  // The longest stall since the last check, with the database checks above included.
  expect(stalls.max / 1e6).toBeLessThan(STALL_LIMIT_MS);
  stalls.reset();
});

interface Send {
  method?: string;
  body?: Buffer | string;
  headers?: Record<string, string>;
  signedIn?: boolean;
}

/** One request as the owner's browser page would send it (cookie and Origin), with exactly these bytes. */
function send(path: string, { method = "POST", body, headers = {}, signedIn = true }: Send = {}): Promise<RawResponse> {
  const base: Record<string, string> = { origin: server.url };
  if (signedIn) base.cookie = cookie;
  if (body !== undefined) base["content-type"] = "application/json";
  return sendRaw(server.url, { method, path, body, headers: { ...base, ...headers } });
}

/** The documented `/api` failure: its status and code, the shape for that code, and no internals. */
function expectApiFailure(res: RawResponse, status: number, code: string | readonly string[], what = ""): void {
  const codes = typeof code === "string" ? [code] : code;
  const context = `${what} → ${res.status} ${res.text.slice(0, 500)}`;
  expect({ status: res.status, known: codes.includes(res.json?.error) }, context).toEqual({ status, known: true });
  expect(errorCodes[res.json.error as TErrorCode]?.status, context).toBe(status);
  const shape = res.json.error === "validation_failed" ? ZApiValidationFailure.strict() : ZApiFailure.strict();
  expect(shape.safeParse(res.json).success, context).toBe(true);
  expect(res.text, context).not.toMatch(/prisma|sqlite|postgres|at \w+ \(|stack|zod/i);
}

/** The JSON text of `body` with the field at `path` replaced by raw JSON text (escapes JSON.stringify never writes). */
function rawJson(body: Record<string, unknown>, path: string, rawValue: string): string {
  return JSON.stringify(withField(body, path, "\u0001MARK\u0001")).replace('"\\u0001MARK\\u0001"', rawValue);
}

const isConfigField = (field: string) => field.startsWith("capabilityConfigs.");
/** What a bad value in `field` is refused with: capability configs are checked by the capability rules. */
const badValueCodes = (field: string) => (isConfigField(field) ? ["validation_failed"] : ["invalid_parameter"]);
/** A path with the route's parameter set to a real id, so only the body is at fault. */
const realPath = (route: CataloguedApiRoute) => apiPathFor(route, route.param ? ids[route.param.name]! : "");

function routesOf(router: AppRouter): AppRoute[] {
  return Object.values(router).flatMap((entry) => ("method" in entry && typeof entry.method === "string" ? [entry as AppRoute] : routesOf(entry as AppRouter)));
}

describe("the catalogue", () => {
  it("lists every /api route of the contract", () => {
    const fromContract = routesOf(apiContract).map((route) => `${route.method} ${route.path}`).sort();
    const catalogued = apiRoutes.map((route) => `${route.method} ${route.path.replace(/\{(\w+)\}/, ":$1")}`).sort();
    expect(catalogued).toEqual(fromContract);
  });
});

describe.each(apiBodyRoutes)("body of $name ($method $path)", (route) => {
  const path = () => realPath(route);
  const body = route.validBody!;
  const fields = route.stringFields ?? [];
  const post = (text: Buffer | string, headers: Record<string, string> = {}) => send(path(), { method: route.method, body: text, headers });
  const what = (detail: string) => `${route.method} ${route.path} ${detail}`;

  it("answers malformed JSON and text that is no JSON with 400 invalid_json", async () => {
    for (const text of ['{"name": "x"', "{name: 'x'}", "{}}", "\u0000", "[1,]", "hello", "{\"a\":1}garbage"]) {
      expectApiFailure(await post(text), 400, "invalid_json", what(JSON.stringify(text)));
    }
  });

  it("answers a body that is not an object with 400 invalid_parameter", async () => {
    for (const text of ["[]", '"remember this"', "42", "null", "true", JSON.stringify([body])]) {
      expectApiFailure(await post(text), 400, "invalid_parameter", what(text));
    }
  });

  it.skipIf(route.emptyBodyValid)("answers an empty body with 400", async () => {
    expectApiFailure(await post(""), 400, ["missing_parameter", "invalid_parameter"], what("empty"));
    expectApiFailure(await post("", { "content-type": "text/plain" }), 400, ["missing_parameter", "invalid_parameter"], what("empty text/plain"));
    expectApiFailure(await post("{}"), 400, ["missing_parameter", "invalid_parameter"], what("{}"));
  });

  it.each(fields)("rejects a wrong type in %s", async (field) => {
    for (const value of [42, true, { a: 1 }, null]) {
      expectApiFailure(await post(JSON.stringify(withField(body, field, value))), 400, badValueCodes(field), what(`${field}=${JSON.stringify(value)}`));
    }
  });

  it.each(fields)("rejects a lone surrogate or a NUL in %s", async (field) => {
    for (const raw of ['"a\\ud800b"', '"\\udfff"', '"x\\ud83d"', '"a\\u0000b"', '"\\u0000"']) {
      expectApiFailure(await post(rawJson(body, field, raw)), 400, "invalid_parameter", what(`${field}=${raw}`));
    }
  });

  it.each(fields)("rejects a huge string (within the body limit) in %s", async (field) => {
    expectApiFailure(await post(JSON.stringify(withField(body, field, "a".repeat(1_000_000)))), 400, badValueCodes(field), what(`${field} of 1e6`));
    expectApiFailure(await post(JSON.stringify(withField(body, field, "🧠".repeat(200_000)))), 400, badValueCodes(field), what(`${field} of 2e5 emoji`));
  });

  it("rejects a lone surrogate or a NUL in a field name", async () => {
    for (const key of ["a\\ud800", "a\\u0000", "\\udfff"]) {
      const text = JSON.stringify(body).replace(/^\{/, `{"${key}":1${Object.keys(body).length > 0 ? "," : ""}`);
      expectApiFailure(await post(text), 400, "invalid_parameter", what(`key ${key}`));
    }
  });

  it("rejects bytes that are not UTF-8 with 400 invalid_json", async () => {
    const [start, end] = fields.length > 0 ? rawJson(body, fields[0]!, '"MARK"').split("MARK") : ['{"x":"', '"}'];
    for (const bad of [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc0, 0xaf]]) {
      expectApiFailure(await post(Buffer.concat([Buffer.from(start!), Buffer.from(bad), Buffer.from(end!)])), 400, "invalid_json", what(`bytes ${bad}`));
    }
  });

  it("rejects deep nesting, shallow and absurd, with 400 and no stack overflow", async () => {
    const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
    const deepObject = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
    const key = fields[0]?.split(".")[0] ?? "nested";
    for (const nested of [deep(40), deepObject(40), deep(100_000), deepObject(100_000)]) {
      const text = JSON.stringify({ ...body, [key]: "MARK" }).replace('"MARK"', nested);
      expectApiFailure(await post(text), 400, ["invalid_parameter", "unknown_parameter", "invalid_json"], what(`nested ${nested.length}`));
    }
  });

  it("rejects unknown fields, `__proto__` and `constructor` included, never merged into a prototype", async () => {
    expectApiFailure(await post(JSON.stringify({ ...body, extraField: 1 })), 400, "unknown_parameter", what("extraField"));
    for (const key of ["__proto__", "constructor", "prototype"]) {
      const text = JSON.stringify(body).replace(/^\{/, `{"${key}":{"polluted":true}${Object.keys(body).length > 0 ? "," : ""}`);
      expectApiFailure(await post(text), 400, "unknown_parameter", what(key));
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("rejects content types other than JSON and charsets other than UTF-8 with 415", async () => {
    const json = JSON.stringify(body);
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml", "application/json; charset=latin1", "application/json; charset=utf-16"]) {
      expectApiFailure(await post(json, { "content-type": type }), 415, "unsupported_media_type", what(type));
    }
    expectApiFailure(await post(json, { "content-encoding": "br-unknown" }), 415, "unsupported_media_type", what("encoding"));
    expectApiFailure(await post(Buffer.from("not gzip"), { "content-encoding": "gzip" }), 400, "invalid_json", what("corrupt gzip"));
  });

  it("answers a body over 1 MiB with 413, declared or not", async () => {
    const field = fields[0] ?? "padding";
    expectApiFailure(await post(JSON.stringify({ ...body, [field]: "a".repeat(1024 * 1024) })), 413, "payload_too_large", what("1 MiB"));
    expectApiFailure(await post("{}", { "content-length": String(100 * 1024 * 1024) }), 413, "payload_too_large", what("declared 100 MiB"));
  });
});

describe("capability configs", () => {
  const path = () => `/api/assistants/${ids.assistantId}/capabilities`;
  const patch = (body: unknown) => send(path(), { method: "PATCH", body: typeof body === "string" ? body : JSON.stringify(body) });

  it("answer lists and objects of thousands of entries with the validation shape, and past 5,000 in all as a request of the wrong format", async () => {
    const capabilities = ["translate_messages"];
    const withEntries = (count: number): unknown[] => [
      { capabilities, capabilityConfigs: { translate_messages: { targetLanguages: Array(count).fill("de") } } },
      { capabilities, capabilityConfigs: { translate_messages: { targetLanguages: Array.from({ length: count / 2 }, () => [1]) } } },
      { capabilities, capabilityConfigs: { translate_messages: { targetLanguages: ["de"], ...Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, i])) } } },
      { capabilities, capabilityConfigs: Object.fromEntries(Array.from({ length: count }, (_, i) => [`c${i}`, {}])) },
    ];
    for (const body of withEntries(4_000)) {
      const res = await patch(body);
      expectApiFailure(res, 400, "validation_failed", "large configs");
      expect(res.json.validationErrors.length).toBeLessThanOrEqual(51);
    }
    // Refused before the contract's checks, whose work grows with every entry.
    for (const body of withEntries(20_000)) {
      const res = await patch(body);
      expectApiFailure(res, 400, "invalid_parameter", "huge configs");
      expect(res.json.message).toBe(`The request body's fields and list items are more than ${MAX_BODY_VALUES} in all.`);
    }
    expectApiFailure(await patch({ capabilities: Array(100_000).fill("a") }), 400, "invalid_parameter", "100k ids");
  });

  const enabled = ["translate_messages"];
  const good = JSON.stringify({ capabilities: enabled, capabilityConfigs: { translate_messages: { targetLanguages: ["de"] } } });

  it("refuse `constructor` keys at every level, and never let a key reach a prototype", async () => {
    const texts = [
      good.replace('"capabilityConfigs":{', '"capabilityConfigs":{"constructor":{},'),
      good.replace('"targetLanguages"', '"constructor":{"prototype":{"polluted":true}},"targetLanguages"'),
      good.replace('"targetLanguages"', '"prototype":{"polluted":true},"targetLanguages"'),
    ];
    for (const text of texts) expectApiFailure(await patch(text), 400, "validation_failed", text);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).targetLanguages).toBeUndefined();
  });

  // The contract's record schema (zod) would drop `__proto__` keys silently and apply the rest of the update;
  // the body checks every route shares refuse them first. Runs on a scratch assistant.
  it("refuse `__proto__` keys inside capabilityConfigs rather than dropping them", async () => {
    const scratch = (text: string) => send(`/api/assistants/${ids.scratch}/capabilities`, { method: "PATCH", body: text });
    const texts = [
      good.replace('"capabilityConfigs":{', '"capabilityConfigs":{"__proto__":{"targetLanguages":["fr"]},'),
      good.replace('"targetLanguages"', '"__proto__":{"polluted":true},"targetLanguages"'),
    ];
    for (const text of texts) expectApiFailure(await scratch(text), 400, ["validation_failed", "invalid_parameter", "unknown_parameter"], text);
  });

  it("refuse If-Match values that name no current version, changing nothing", async () => {
    const body = JSON.stringify({ capabilities: ["search_memory"], capabilityConfigs: { search_memory: { maxMemories: 3 } } });
    // `*` (any version) is a valid precondition, so it is not among them.
    for (const ifMatch of ['"0"', '"999999999"', '"99999999999"', "**", "garbage", 'W/"0"', '"-1"', '"1.5"', '"1", "2"', '"2", "1"', "\"2"]) {
      expectApiFailure(await send(path(), { method: "PATCH", body, headers: { "if-match": ifMatch } }), 412, "precondition_failed", `If-Match ${ifMatch}`);
    }
    // One that names no version says so, with the ETag to send instead.
    expect((await send(path(), { method: "PATCH", body, headers: { "if-match": "garbage" } })).json.message).toMatch(/^The assistant is at version \d+ \(ETag "\d+"\), If-Match names no version of it/);
    expectApiFailure(await send(path(), { method: "PATCH", body, headers: { "if-match": `"${"1".repeat(200)}"` } }), 400, "invalid_parameter", "long If-Match");
  });
});

/** Escapes that cannot be decoded into a well-formed string. */
const undecodable = ["%ZZ", "%", "%E0%A4%A", "%ED%A0%80", "%C0%AF", "%FF", "abc%2", "%F8%88%80%80%80", "%C0%80"];

describe.each(apiRoutes.filter((route) => route.param))("path parameter of $name ($method $path)", (route) => {
  const call = (value: string) =>
    send(apiPathFor(route, value), { method: route.method, ...(route.validBody ? { body: JSON.stringify(route.validBody) } : {}) });
  const what = (value: string) => `${route.method} ${apiPathFor(route, value).slice(0, 200)}`;

  it("answers 400 invalid_parameter to a value that does not decode", async () => {
    for (const value of undecodable) expectApiFailure(await call(value), 400, "invalid_parameter", what(value));
  });

  it("answers 400 to a NUL or a lone surrogate", async () => {
    for (const value of ["%00", `${ids[route.param!.name]}%00`, "a%00b"]) expectApiFailure(await call(value), 400, "invalid_parameter", what(value));
  });

  it("answers 400 to an over-long value, up to what the HTTP parser reads", async () => {
    for (const length of [101, 1_000, 8_000]) expectApiFailure(await call("m".repeat(length)), 400, "invalid_parameter", what(`${length} chars`));
    expectApiFailure(await call("%41".repeat(1_000)), 400, "invalid_parameter", what("1000 escaped"));
  });

  it("answers 404 to well-formed values that name nothing", async () => {
    const real = ids[route.param!.name]!;
    for (const value of ["%F0%9F%A7%A0", "x_%E2%80%AE", "..", "%2E%2E", "%20", "does_not_exist", real.toUpperCase(), `${real}x`, `%20${real}`, encodeURIComponent("'; DROP TABLE \"Memory\"; --"), "%25", "*"]) {
      const res = await call(value);
      // An encoded slash or dot segment may route nowhere (route_not_found) or name nothing: both are 404.
      expectApiFailure(res, 404, [route.param!.notFound, "route_not_found"], what(value));
    }
  });
});

describe("query strings", () => {
  const get = (path: string) => send(path, { method: "GET" });

  it("refuse odd values and unknown keys on the routes that read them", async () => {
    for (const query of ["environment=%00", "environment=%FF", "environment=%ZZ", "environment=prod", `environment=${"x".repeat(8_000)}`, "environment[]=test", "environment[a]=b", "environment=test&environment=staging", "limit=100000", "constructor=x"]) {
      expectApiFailure(await get(`/api/memory/candidates?${query}`), 400, ["invalid_parameter", "unknown_parameter"], query);
    }
    for (const query of ["assistantType=%00", "assistantType=robot", "assistantType[]=org_shared", `category=${"x".repeat(101)}`, "category[a]=b", "tier=free"]) {
      expectApiFailure(await get(`/api/capabilities/registry?${query}`), 400, ["invalid_parameter", "unknown_parameter"], query);
    }
    const badCursors = ["cursor=%00", "cursor=***", "cursor=bm90IGpzb24", `cursor=${Buffer.from('["yesterday","x"]').toString("base64url")}`, `cursor=${"x".repeat(201)}`];
    for (const query of ["q=%00", "q=%20%20", `q=${"x".repeat(2_001)}`, "q[]=x", "limit=0", "limit=101", "limit=1e9", "state=deleted", "kind=rumor", "source=email", "agent=Not%20A%20Slug", "subject=%00", "environment=prod", "sort=asc", ...badCursors]) {
      expectApiFailure(await get(`/api/memory/search?${query}`), 400, ["invalid_parameter", "unknown_parameter"], query);
    }
    expectApiFailure(await get("/api/memory/search?q=deploy&state=suppressed"), 400, "invalid_parameter", "q with state");
    for (const query of ["type=%00", `type=${"x".repeat(1_000)}`, "limit=51", "limit=-1", "environment[]=test", "q=x", ...badCursors]) {
      expectApiFailure(await get(`/api/memory/events?${query}`), 400, ["invalid_parameter", "unknown_parameter"], query);
    }
    for (const query of ["workflow=%00", `workflow=${"x".repeat(101)}`, "workflow[a]=b", "state=open", "limit=101"]) {
      expectApiFailure(await get(`/api/memory/workflows?${query}`), 400, ["invalid_parameter", "unknown_parameter"], query);
    }
    for (const query of ["cursor=%00", "cursor=%FF", "cursor=Not%20A%20Slug", `cursor=${"a".repeat(64)}`, "cursor[]=a", "limit=501", "limit=1e9", "q=x"]) {
      expectApiFailure(await get(`/api/organization/agents?${query}`), 400, ["invalid_parameter", "unknown_parameter"], query);
    }
  });

  it("leave the prototype alone and never 500 on filters that match nothing", async () => {
    for (const path of ["/api/memory/search?__proto__[x]=1", "/api/memory/search?q=%F0%9F%A7%A0", "/api/memory/search?subject=%F0%9F%A7%A0", "/api/memory/events?type=%F0%9F%A7%A0", "/api/memory/candidates?__proto__[x]=1", "/api/capabilities/registry?__proto__=x", "/api/capabilities/registry?category=%00", "/api/capabilities/registry?category=%F0%9F%A7%A0"]) {
      const res = await get(path);
      if (res.status !== 200) expectApiFailure(res, 400, ["invalid_parameter", "unknown_parameter"], path);
    }
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe("without a session", () => {
  // Signing in and out need no live session.
  const signedInRoutes = apiRoutes.filter((route) => route.name !== "login" && route.name !== "logout");
  const call = (route: CataloguedApiRoute, headers: Record<string, string>) =>
    send(apiPathFor(route, ids[route.param?.name ?? ""] ?? "x"), {
      method: route.method,
      signedIn: false,
      headers,
      ...(route.validBody ? { body: JSON.stringify(route.validBody) } : {}),
    });

  it.each(signedInRoutes)("$name answers 401 not_signed_in, whatever the cookie holds", async (route) => {
    const secretShaped = "A".repeat(43);
    for (const cookieHeader of [
      "",
      `engram_session=${secretShaped}`,
      "engram_session=%FF%00",
      "engram_session=",
      `engram_session=${"x".repeat(4_000)}`,
      `engram_session="${secretShaped}"`,
      "engram_session",
      ";;;=;=",
      `other=1; engram_session=${secretShaped}; engram_session=${secretShaped}`,
    ]) {
      expectApiFailure(await call(route, cookieHeader ? { cookie: cookieHeader } : {}), 401, "not_signed_in", `${route.name} cookie ${cookieHeader.slice(0, 40)}`);
    }
  });

  it("sign-out answers 200 whatever the cookie holds, ending no other session", async () => {
    const logout = apiRoutes.find((route) => route.name === "logout")!;
    for (const cookieHeader of ["", `engram_session=${"A".repeat(43)}`, "engram_session=%FF%00", `engram_session=${"x".repeat(4_000)}`, ";;;=;="]) {
      const res = await call(logout, cookieHeader ? { cookie: cookieHeader } : {});
      expect({ status: res.status, body: res.json }, res.text).toEqual({ status: 200, body: { success: true } });
    }
  });

  it.each(apiRoutes)("$name answers 401 token_not_accepted to an access token", async (route) => {
    expectApiFailure(await call(route, { authorization: "Bearer acm_whatever" }), 401, "token_not_accepted", route.name);
    expectApiFailure(await call(route, { cookie, authorization: "" }), 401, "token_not_accepted", route.name);
  });
});

describe("requests another site could have sent", () => {
  const unsafe = apiRoutes.filter((route) => route.method !== "GET");
  /** The route's valid body with real ids: a check that let it through would change what is stored. */
  const call = (route: CataloguedApiRoute, headers: Record<string, string>, withOrigin = false) => {
    const { origin: _, ...rest } = headers;
    return sendRaw(server.url, {
      method: route.method,
      path: realPath(route),
      headers: { cookie, "content-type": "application/json", ...(withOrigin ? headers : rest) },
      body: JSON.stringify(route.validBody ?? {}),
    });
  };

  it.each(unsafe)("$name answers 403 cross_site_request to a foreign or odd Origin", async (route) => {
    const { host, port } = new URL(server.url);
    const foreign = ["null", "", "http://evil.example", `${server.url}.evil.example`, `${server.url}@evil.example`, `http://localhost:${port}`, `http://${host}0`, "file://", "http://[::1", "%00", `http://${"a".repeat(4_000)}.example`, `${server.url}%00`];
    for (const origin of foreign) {
      expectApiFailure(await call(route, { origin }, true), 403, "cross_site_request", `${route.name} Origin ${origin.slice(0, 60)}`);
      // The session's own token does not excuse a foreign Origin.
      expectApiFailure(await call(route, { origin, "x-csrf-token": owner.csrfToken! }, true), 403, "cross_site_request", `${route.name} Origin ${origin.slice(0, 60)} + token`);
    }
    expectApiFailure(await call(route, { origin: server.url, "sec-fetch-site": "cross-site" }, true), 403, "cross_site_request", `${route.name} Sec-Fetch-Site`);
  });

  it.each(unsafe.filter((route) => route.name !== "login"))("$name answers 403 cross_site_request without an Origin unless the session's own X-CSRF-Token comes with it", async (route) => {
    for (const token of [undefined, "", "x", otherCsrfToken, `${owner.csrfToken}x`, owner.csrfToken!.toUpperCase(), "a".repeat(8_000)]) {
      const headers: Record<string, string> = token === undefined ? {} : { "x-csrf-token": token };
      expectApiFailure(await call(route, headers), 403, "cross_site_request", `${route.name} token ${String(token).slice(0, 20)}`);
    }
  });
});

describe("paths that are no route", () => {
  /** Variants that touch only the literal segments of the path, so none can reach another route's parameter. */
  const variants = (route: CataloguedApiRoute, path: string): string[] => {
    const segments = path.split("/");
    const literal = route.path.split("/").map((segment) => !segment.startsWith("{"));
    const lastLiteral = literal.lastIndexOf(true);
    const upper = segments.map((segment, i) => (i === lastLiteral ? segment.toUpperCase() : segment)).join("/");
    const capital = segments.map((segment, i) => (i === 2 ? segment.charAt(0).toUpperCase() + segment.slice(1) : segment)).join("/");
    const found = [`${path}/`, `${path}//`, upper, capital, path.replace("/api/", "/api//"), path.replace("/api/", "/api/./")];
    return literal.at(-1) ? [...found, `${path}%2F`, `${path};x`, `${path}.json`] : found;
  };

  /** `GET /api/memory/:id` takes any one segment: a variant of a fixed `/api/memory/<name>` lands there and names no memory. */
  const notFoundCodes = (method: string, variant: string) => (method === "GET" && /^\/api\/memory\/[^/]+$/.test(variant) ? ["route_not_found", "memory_not_found"] : "route_not_found");

  it.each(apiRoutes)("$method $path in another case or with a trailing slash answers 404 route_not_found in the /api shape", async (route) => {
    const path = apiPathFor(route, ids[route.param?.name ?? ""] ?? "");
    for (const variant of variants(route, path)) {
      if (variant === path) continue;
      const res = await send(variant, { method: route.method, ...(route.validBody ? { body: JSON.stringify(route.validBody) } : {}) });
      expectApiFailure(res, 404, notFoundCodes(route.method, variant), `${route.method} ${variant}`);
    }
  });

  it("unknown /api paths and methods answer 404 route_not_found in the /api shape", async () => {
    const paths = ["/api", "/api/", "/api/nothing", "/api/%ZZ", "/api/%00", "/api/%FF/x", "/api/organization/members/a/b/c", "/api/assistants/x/y/z", "/api/v1/memory", "/api/../v1/models", `/api/${"x".repeat(8_000)}`];
    for (const path of paths) {
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
        expectApiFailure(await send(path, { method, body: method === "GET" ? undefined : "{}" }), 404, "route_not_found", `${method} ${path}`);
      }
    }
    for (const [method, path] of [["PUT", "/api/organization"], ["DELETE", "/api/organization"], ["POST", "/api/auth/me"], ["GET", "/api/auth/login"], ["PATCH", "/api/organization/tokens"]] as const) {
      expectApiFailure(await send(path, { method, body: method === "GET" ? undefined : "{}" }), 404, "route_not_found", `${method} ${path}`);
    }
    // The path named is the one requested, /api included, as on /v1.
    expect((await send("/api/memory/x/promote", { method: "POST", body: "{}" })).json).toMatchObject({ message: "No route POST /api/memory/x/promote." });
    expect((await send("/api/nothing?q=1", { method: "GET" })).json).toMatchObject({ message: "No route GET /api/nothing." });
  });

  it("the /api prefix in another case is no /api path: 404 route_not_found, never 500", async () => {
    for (const path of ["/API/organization", "/Api/auth/me", "/aPi/assistants"]) {
      const res = await send(path, { method: "GET" });
      expect(res.status, res.text).toBe(404);
      expect(res.json?.error === "route_not_found" || res.json?.error?.code === "route_not_found", res.text).toBe(true);
    }
  });
});
