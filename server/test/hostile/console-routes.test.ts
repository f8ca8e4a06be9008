import { monitorEventLoopDelay } from "node:perf_hooks";
import { apiContract, ZApiFailure } from "@engram/contract";
import type { AppRoute, AppRouter } from "@ts-rest/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { rawRequest, type SessionClient, type SessionResponse, startTestServer, type TestServer } from "@engram/test-support";
import { apiQueries, apiRoutes } from "./route-catalogue";

/**
 * The console's session-backed routes against a hostile signed-in client: query keys sent twice, as lists or
 * objects, or empty; forged cursors (odd bytes, times no database stores, another organization's position);
 * a person with rights in two organizations; state changes racing through `/v1` and `/api`; and a search of
 * the longest query. Each answers a documented 4xx or the caller's own data, the same on both backends.
 */

const STALL_LIMIT_MS = 1_000;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimits: "off" });
});
afterAll(() => server?.stop());

type Person = SessionClient & { userId: string; email: string };

async function newOrg(): Promise<{ orgId: string; owner: Person; token: string; testToken: string }> {
  const orgId = await server.newOrg({ plan: "spark" });
  return { orgId, owner: await server.signedIn(orgId, "owner"), token: await server.newToken(orgId), testToken: await server.newToken(orgId, { environment: "test" }) };
}

async function encode(token: string, text: string): Promise<{ id: string; createdAt: string }> {
  const res = await rawRequest(server.url, "/v1/memory", { token, body: JSON.stringify({ text }) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.memory;
}

/** The documented `/api` failure; `field`, when given, is the one its message names first (`cursor: …`). */
function expectFailure(res: SessionResponse, status: number, code: string, field: string | null, what: string): void {
  const context = `${what}: ${JSON.stringify(res.body)}`;
  expect({ status: res.status, error: res.body?.error }, context).toEqual({ status, error: code });
  expect(ZApiFailure.strict().safeParse(res.body).success, context).toBe(true);
  if (field !== null) expect(res.body.message.startsWith(`${field}: `), context).toBe(true);
}

/** A new shared assistant of the person's organization, with one change in its log. */
async function newAssistant(person: Person): Promise<string> {
  const res = await person.post("/api/assistants", { name: "Paged", type: "org_shared" });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.assistant._id;
}

const cursorOf = (value: unknown) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");
const ids = (body: { memories: Array<{ id: string }> }) => body.memories.map((memory) => memory.id);

function routesOf(router: AppRouter): AppRoute[] {
  return Object.values(router).flatMap((entry) => ("method" in entry && typeof entry.method === "string" ? [entry as AppRoute] : routesOf(entry as AppRouter)));
}

/** The catalogued route with its query: path and the keys it reads. */
const queryRoutes = Object.entries(apiQueries).map(([name, query]) => ({ name, path: apiRoutes.find((route) => route.name === name)!.path, query }));

describe("query strings", () => {
  it("the catalogue names every query key of every /api route", () => {
    const fromContract = routesOf(apiContract)
      .filter((route) => route.method === "GET" && route.query)
      .map((route) => `${route.path} ${Object.keys((route.query as z.AnyZodObject).shape).sort().join(",")}`)
      .sort();
    const catalogued = queryRoutes.map((route) => `${route.path.replace(/\{(\w+)\}/g, ":$1")} ${Object.keys(route.query).sort().join(",")}`).sort();
    expect(catalogued).toEqual(fromContract);
  });

  let person: Person;
  let pathOf: (pattern: string) => string;
  beforeAll(async () => {
    const org = await newOrg();
    person = org.owner;
    const memoryId = (await encode(org.token, "A memory whose history is paged.")).id;
    const assistantId = await newAssistant(person);
    pathOf = (pattern) => pattern.replace("{id}", memoryId).replace("{assistantId}", assistantId);
  });

  it.each(queryRoutes)("$name takes each key once, and refuses it twice, as a list or an object, or not percent-encoded UTF-8, with 400 naming it", async ({ path: pattern, query }) => {
    const path = pathOf(pattern);
    for (const [key, value] of Object.entries(query)) {
      const one = `${key}=${encodeURIComponent(value)}`;
      const alone = await person.get(`${path}?${one}`);
      expect(alone.status, `${path}?${one}: ${JSON.stringify(alone.body)}`).toBe(200);
      for (const variant of [`${one}&${one}`, `${key}[]=${encodeURIComponent(value)}`, `${key}[0]=${encodeURIComponent(value)}`, `${key}[a]=${encodeURIComponent(value)}`, `${one}&${key}=`, `${key}=%ED%A0%80`, `${key}=%ZZ`]) {
        expectFailure(await person.get(`${path}?${variant}`), 400, "invalid_parameter", key, `${path}?${variant}`);
      }
    }
  });

  it("refuses an empty cursor, limit, q, filter or environment on the explorer and event routes", async () => {
    for (const { name, path, query } of queryRoutes.filter((route) => ["searchMemories", "developerEvents", "workflowStates"].includes(route.name))) {
      for (const key of Object.keys(query)) expectFailure(await person.get(`${path}?${key}=`), 400, "invalid_parameter", key, `${name} ${key}=`);
    }
  });
});

describe("cursors", () => {
  // Each route with the key its cursor goes by: a memory's history pages by `historyCursor`.
  const cursorRoutes = queryRoutes.flatMap((route) => Object.keys(route.query).filter((key) => /^(cursor|historyCursor)$/.test(key)).map((key) => ({ ...route, key })));
  const at = "2026-01-01T00:00:00.000Z";
  const forged: Record<string, string> = {
    "a NUL in the id": cursorOf([at, "mem_\u0000"]),
    "a lone surrogate in the id": cursorOf(`["${at}","mem_\\ud800"]`),
    "an id of odd characters": cursorOf([at, "'; DROP TABLE \"Memory\"; --"]),
    "an empty id": cursorOf([at, ""]),
    "an id over 100 characters": cursorOf([at, "m".repeat(101)]),
    "the earliest time JavaScript has": cursorOf(["-271821-04-20T00:00:00.000Z", "mem_x"]),
    "the latest time JavaScript has": cursorOf(["+275760-09-13T00:00:00.000Z", "mem_x"]),
    "year zero": cursorOf(["0000-01-01T00:00:00.000Z", "mem_x"]),
    "a year before Christ": cursorOf(["-000001-01-01T00:00:00.000Z", "mem_x"]),
    "a year of five digits": cursorOf(["+010000-01-01T00:00:00.000Z", "mem_x"]),
    "a time without milliseconds": cursorOf(["2026-01-01T00:00:00Z", "mem_x"]),
    "a time with an offset": cursorOf(["2026-01-01T00:00:00.000+01:00", "mem_x"]),
    "a number for the time": cursorOf([0, "mem_x"]),
    "an object": cursorOf({ createdAt: at, id: "mem_x" }),
    "three entries": cursorOf([at, "mem_x", "more"]),
    "a prototype key": cursorOf('{"__proto__":{"polluted":1}}'),
    "padding": `${cursorOf([at, "mem_x"])}==`,
    "standard base64": Buffer.from(JSON.stringify([at, "mem_x?>>"])).toString("base64"),
    "base64 of no JSON": cursorOf("not json at all"),
    "bytes that are not UTF-8": Buffer.from([0xff, 0xfe, 0x5b, 0x22]).toString("base64url"),
    "nothing at all": "",
    "percent-escapes": "%41%42",
  };

  let person: Person;
  let pathOf: (pattern: string) => string;
  beforeAll(async () => {
    const org = await newOrg();
    person = org.owner;
    const memoryId = (await encode(org.token, "A memory whose history is paged.")).id;
    const assistantId = await newAssistant(person);
    pathOf = (pattern) => pattern.replace("{id}", memoryId).replace("{assistantId}", assistantId);
  });

  it.each(cursorRoutes)("$name refuses every forged $key with 400 invalid_parameter naming it", async ({ path: pattern, key }) => {
    const path = pathOf(pattern);
    for (const [what, cursor] of Object.entries(forged)) {
      expectFailure(await person.get(`${path}?${key}=${encodeURIComponent(cursor)}`), 400, "invalid_parameter", key, `${path} ${what}`);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("is only a position: another organization's, environment's or filter's cursor pages on through the caller's own memories", async () => {
    const mine = await newOrg();
    const theirs = await newOrg();
    const own = [await encode(mine.token, "Mine, first."), await encode(mine.token, "Mine, second.")];
    const testOwn = await encode(mine.testToken, "Mine, in test.");
    const foreign = [await encode(theirs.token, "Theirs, first."), await encode(theirs.token, "Theirs, second.")];
    // A position just after every memory of both organizations, naming their newest memory.
    const newest = foreign.at(-1)!;
    const theirCursor = cursorOf([new Date(Date.parse(newest.createdAt) + 1_000).toISOString(), newest.id]);
    const answer = await mine.owner.get(`/api/memory/search?cursor=${theirCursor}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(ids(answer.body)).toEqual(own.map((memory) => memory.id).reverse());

    // Page one of the test environment, a page at a time, then its cursor on production and with a filter.
    const testPage = await mine.owner.get("/api/memory/search?environment=test&limit=1");
    expect(ids(testPage.body)).toEqual([testOwn.id]);
    const first = await mine.owner.get("/api/memory/search?limit=1");
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const elsewhere = await mine.owner.get(`/api/memory/search?environment=test&cursor=${first.body.nextCursor}`);
    expect(elsewhere.status).toBe(200);
    expect(ids(elsewhere.body).every((id) => id === testOwn.id)).toBe(true);
    const filtered = await mine.owner.get(`/api/memory/search?state=suppressed&cursor=${first.body.nextCursor}`);
    expect(ids(filtered.body)).toEqual([]);
    // The events route reads the same positions, in its own organization only.
    const events = await mine.owner.get(`/api/memory/events?cursor=${theirCursor}`);
    expect(events.body.events).toEqual([]);
  });
});

describe("organizations", () => {
  it("a person with rights in two organizations reads and changes only the active one's memories, events and agents", async () => {
    const a = await newOrg();
    const b = await newOrg();
    const person = await server.signedIn(a.orgId, "admin");
    expect((await b.owner.post("/api/organization/members", { email: person.email, role: "admin" })).status).toBe(201);
    const theirs = await encode(b.token, "B's memory.");
    await rawRequest(server.url, "/v1/memory/agents/b-helper", { token: b.token, body: JSON.stringify({ text: "B's agent memory." }) });
    const event = await rawRequest(server.url, "/v1/memory/events", { token: b.token, body: JSON.stringify({ type: "deploy.completed", text: "B deployed.", subject: "b-svc" }) });
    expect(event.status).toBe(201);
    const before = await server.db.memory.findUniqueOrThrow({ where: { id: theirs.id } });

    expect((await person.get("/api/auth/me")).body.activeOrganizationId).toBe(a.orgId);
    for (const verb of ["reinforce", "suppress", "restore", "tombstone"]) {
      expectFailure(await person.post(`/api/memory/${theirs.id}/${verb}`, { reason: "not this organization" }), 404, "memory_not_found", null, verb);
    }
    expectFailure(await person.get(`/api/memory/${theirs.id}`), 404, "memory_not_found", null, "get");
    expect((await person.get("/api/memory/search")).body.memories).toEqual([]);
    expect((await person.get("/api/memory/events")).body.events).toEqual([]);
    expect((await person.get("/api/memory/workflows")).body.workflows).toEqual([]);
    expect((await person.get("/api/organization/agents")).body.agents).toEqual([]);
    expect(await server.db.memory.findUniqueOrThrow({ where: { id: theirs.id } })).toEqual(before);

    expect((await person.put("/api/auth/organization", { organizationId: b.orgId })).status).toBe(200);
    expect((await person.post(`/api/memory/${theirs.id}/suppress`, { reason: "now in B" })).status).toBe(200);
    expect((await person.get("/api/memory/events")).body.events.map((e: { id: string }) => e.id)).toEqual([event.body.eventId]);
    expect((await person.get("/api/organization/agents")).body.agents.map((agent: { slug: string }) => agent.slug)).toEqual(["b-helper"]);
  });
});

describe("state changes racing through /v1 and /api", () => {
  it("write one history row per change that happened, and the history always chains to the stored state", async () => {
    const org = await newOrg();
    const admin = await server.signedIn(org.orgId, "admin");
    const v1 = (path: string, method = "POST") => rawRequest(server.url, path, { token: org.token, method, ...(method === "POST" ? { body: "{}" } : {}) });
    const change: Record<string, (id: string) => Promise<number>> = {
      "console suppress": async (id) => (await org.owner.post(`/api/memory/${id}/suppress`, {})).status,
      "console restore": async (id) => (await org.owner.post(`/api/memory/${id}/restore`, {})).status,
      "another person's restore": async (id) => (await admin.post(`/api/memory/${id}/restore`, {})).status,
      "console tombstone": async (id) => (await admin.post(`/api/memory/${id}/tombstone`, {})).status,
      "console reinforce": async (id) => (await admin.post(`/api/memory/${id}/reinforce`, {})).status,
      "token suppress": async (id) => (await v1(`/v1/memory/${id}/suppress`)).status,
      "token restore": async (id) => (await v1(`/v1/memory/${id}/restore`)).status,
      "token delete": async (id) => (await v1(`/v1/memory/${id}`, "DELETE")).status,
    };
    const races: Array<{ from: "durable" | "suppressed"; contenders: string[] }> = [
      { from: "durable", contenders: ["console suppress", "token suppress", "console reinforce"] },
      { from: "durable", contenders: ["console suppress", "console tombstone", "token delete"] },
      { from: "suppressed", contenders: ["console restore", "another person's restore", "token restore"] },
      { from: "suppressed", contenders: ["console restore", "console tombstone", "token delete", "console reinforce"] },
    ];
    for (const { from, contenders } of races) {
      for (let round = 0; round < 3; round++) {
        const { id } = await encode(org.token, `Contested ${contenders.join(", ")} ${round}.`);
        if (from === "suppressed") expect(await change["console suppress"]!(id)).toBe(200);
        const statuses = await Promise.all(contenders.map((name) => change[name]!(id)));
        const what = `${from}: ${contenders.map((name, i) => `${name} ${statuses[i]}`).join(", ")}`;
        expect(statuses.every((status) => status === 200 || status === 409), what).toBe(true);

        const history = await server.db.memoryHistory.findMany({ where: { memoryId: id }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
        const stored = await server.db.memory.findUniqueOrThrow({ where: { id } });
        const stateChanges = history.filter((row) => row.action !== "reinforced");
        for (const [i, row] of stateChanges.entries()) if (i > 0) expect(row.fromState, what).toBe(stateChanges[i - 1]!.toState);
        expect(stateChanges.at(-1)!.toState, what).toBe(stored.state);
        // A repeated tombstone answers 200 and writes nothing: count the changes the stored history shows.
        const reinforcements = history.filter((row) => row.action === "reinforced").length;
        expect(stored.reinforcementCount, what).toBe(reinforcements);
        const reinforcedOk = contenders.filter((name, i) => name === "console reinforce" && statuses[i] === 200).length;
        expect(reinforcements, what).toBe(reinforcedOk);
        const tombstoners = contenders.filter((name, i) => /tombstone|delete/.test(name) && statuses[i] === 200).length;
        const others = contenders.filter((name, i) => !/tombstone|delete|reinforce/.test(name) && statuses[i] === 200).length;
        expect(stateChanges.length - (from === "suppressed" ? 2 : 1), what).toBe(others + Math.min(tombstoners, 1));
      }
    }
  });
});

describe("bounded work", () => {
  it("a search of the longest q, of hundreds of distinct terms, answers without holding the event loop", async () => {
    const org = await newOrg();
    const words = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}x`);
    for (let start = 0; start < 200; start += 20) {
      await Promise.all(Array.from({ length: 20 }, (_, k) => encode(org.token, `Memory ${start + k} mentions ${words.slice((start + k) % 380, ((start + k) % 380) + 20).join(" ")}.`)));
    }
    const distinct = words.join(" ").slice(0, 2_000);
    const repeated = "deploy payments rollback ".repeat(100).slice(0, 2_000);
    const stalls = monitorEventLoopDelay({ resolution: 10 });
    stalls.enable();
    try {
      for (const q of [distinct, repeated, `${distinct.slice(0, 1_990)} subject`]) {
        const res = await org.owner.get(`/api/memory/search?q=${encodeURIComponent(q)}&limit=100`);
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
        expect(res.body.memories.length).toBeLessThanOrEqual(100);
      }
      expectFailure(await org.owner.get(`/api/memory/search?q=${"x".repeat(2_001)}`), 400, "invalid_parameter", "q", "q over the limit");
    } finally {
      stalls.disable();
    }
    expect(stalls.max / 1e6).toBeLessThan(STALL_LIMIT_MS);
  });
});
