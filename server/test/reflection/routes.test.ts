import { randomUUID } from "node:crypto";
import { ZApiFailure } from "@engram/contract";
import { rawRequest, type SessionClient, type SessionResponse, startTestServer, type TestServer } from "@engram/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The reflection routes over HTTP with real sessions: who may do what, starting runs and the 409 while one is
 * running, events and audits a page at a time with their filters and cursors, queries refused with the field
 * named, and organizations and environments kept apart.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimits: "off" });
});
afterAll(async () => {
  await server?.services.reflectionRunner.idle();
  await server?.stop();
});

const BASE = "/api/memory/reflection";
const MINUTE = 60_000;

function expectFailure(res: SessionResponse, status: number, code: string, message?: RegExp): void {
  expect({ status: res.status, error: res.body?.error }, JSON.stringify(res.body)).toEqual({ status, error: code });
  expect(ZApiFailure.strict().safeParse(res.body).success, JSON.stringify(res.body)).toBe(true);
  if (message) expect(res.body.message).toMatch(message);
}

/** Starts a run and waits until it has finished. */
async function runToEnd(client: SessionClient, environment?: string): Promise<string> {
  const res = await client.post(`${BASE}/run`, environment ? { environment } : {});
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  await server.services.reflectionRunner.idle();
  return res.body.auditId;
}

/** Every page of a listing, following nextCursor to the end. */
async function allPages(client: SessionClient, path: string, key: "events" | "audits"): Promise<{ pages: number[]; items: Array<{ id: string }> }> {
  const pages: number[] = [];
  const items: Array<{ id: string }> = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const res = await client.get(cursor ? `${path}${separator}cursor=${cursor}` : path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    pages.push(res.body[key].length);
    items.push(...res.body[key]);
    cursor = res.body.nextCursor;
  } while (cursor !== null && pages.length < 50);
  return { pages, items };
}

const READ_PATHS = ["/settings", "/events", "/audits", "/metrics", "/metrics/summary", "/metrics/trend", "/metrics/distribution"];

describe("permissions", () => {
  it("lets every member read, and only owners and admins change settings and run", async () => {
    const orgId = await server.newOrg();
    const people = { owner: await server.signedIn(orgId, "owner"), admin: await server.signedIn(orgId, "admin"), member: await server.signedIn(orgId, "member") };
    for (const [role, client] of Object.entries(people)) {
      for (const path of READ_PATHS) {
        const res = await client.get(BASE + path);
        expect(res.status, `${role} GET ${path}: ${JSON.stringify(res.body)}`).toBe(200);
        expect(res.body.success).toBe(true);
      }
    }

    expectFailure(await people.member.patch(`${BASE}/settings`, { enabled: false }), 403, "permission_denied");
    expectFailure(await people.member.post(`${BASE}/run`, {}), 403, "permission_denied", /owners and admins/);
    expect(await server.db.reflectionRun.count({ where: { orgId } })).toBe(0);
    expect(await server.db.reflectionSettings.count({ where: { orgId } })).toBe(0);

    for (const role of ["owner", "admin"] as const) {
      const client = people[role];
      expect((await client.patch(`${BASE}/settings`, { intervalMinutes: role === "owner" ? 30 : 40 })).status).toBe(200);
      const auditId = await runToEnd(client);
      const audit = (await people.member.get(`${BASE}/audits`)).body.audits[0];
      expect(audit).toMatchObject({ id: auditId, trigger: "person", triggeredBy: `user:${client.email}`, status: "completed" });
    }
  });

  it("works through curl's proof too (X-CSRF-Token, no Origin), and not without one", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    expectFailure(await owner.post(`${BASE}/run`, {}, { proof: "none" }), 403, "cross_site_request");
    expectFailure(await owner.patch(`${BASE}/settings`, { enabled: false }, { proof: "none" }), 403, "cross_site_request");
    expect((await owner.post(`${BASE}/run`, {}, { proof: "csrf" })).status).toBe(202);
    expect((await owner.patch(`${BASE}/settings`, { enabled: false }, { proof: "csrf" })).status).toBe(200);
    await server.services.reflectionRunner.idle();
  });

  it("answers the active organization's reflection, switching with the session", async () => {
    const first = await server.newOrg();
    const second = await server.newOrg();
    const person = await server.signedIn(first, "owner");
    await server.services.memberships.add(second, person.userId, "member", "cli");
    const auditId = await runToEnd(person);
    expect((await person.get(`${BASE}/audits`)).body.audits.map((a: { id: string }) => a.id)).toEqual([auditId]);

    expect((await person.put("/api/auth/organization", { organizationId: second })).status).toBe(200);
    expect((await person.get(`${BASE}/audits`)).body.audits).toEqual([]);
    // A member there: reading only.
    expectFailure(await person.post(`${BASE}/run`, {}), 403, "permission_denied");
  });
});

describe("running", () => {
  it("answers 202 with the audit id at once, and the audit records the finished run", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const res = await owner.post(`${BASE}/run`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toEqual({ success: true, auditId: expect.stringMatching(/^rfr_/), environment: "production" });
    await server.services.reflectionRunner.idle();

    const audits = (await owner.get(`${BASE}/audits`)).body.audits;
    expect(audits).toHaveLength(1);
    const [audit] = audits;
    expect(audit).toMatchObject({ id: res.body.auditId, environment: "production", trigger: "person", triggeredBy: `user:${owner.email}`, status: "completed", errors: [] });
    expect(Date.parse(audit.finishedAt)).toBeGreaterThanOrEqual(Date.parse(audit.startedAt));
    // Counts are per process that ran, each with what it examined and did.
    for (const [name, counts] of Object.entries(audit.counts as Record<string, { examined: number; actions: number }>)) {
      expect(server.services.reflectionRunner.processNames()).toContain(name);
      expect(counts.actions).toBeGreaterThanOrEqual(0);
    }
  });

  it("answers 409 run_in_progress while a run is going in that environment, and not in another", async () => {
    const orgId = await server.newOrg();
    const admin = await server.signedIn(orgId, "admin");
    // A run another server process is working on: its lease runs for another hour.
    await server.db.reflectionRun.create({
      data: {
        id: `rfr_${randomUUID().replaceAll("-", "")}`,
        orgId,
        environment: "staging",
        trigger: "schedule",
        status: "running",
        startedAt: new Date(Date.now() - MINUTE),
        counts: "{}",
        errors: "[]",
        progress: JSON.stringify({ done: [] }),
        leaseOwner: "runner_elsewhere",
        leaseExpiresAt: new Date(Date.now() + 60 * MINUTE),
      },
    });
    for (let i = 0; i < 2; i++) expectFailure(await admin.post(`${BASE}/run`, { environment: "staging" }), 409, "run_in_progress", /already in progress for staging/);
    expect(await server.db.reflectionRun.count({ where: { orgId, environment: "staging" } })).toBe(1);
    const staging = (await admin.get(`${BASE}/audits?environment=staging`)).body.audits;
    expect(staging).toEqual([expect.objectContaining({ status: "running", finishedAt: null, trigger: "schedule", triggeredBy: null })]);

    await runToEnd(admin, "production");
    await server.db.reflectionRun.updateMany({ where: { orgId, environment: "staging" }, data: { status: "completed", finishedAt: new Date(), leaseOwner: null, leaseExpiresAt: null } });
    await runToEnd(admin, "staging");
  });

  it("refuses bodies that name no environment", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    expectFailure(await owner.post(`${BASE}/run`, { environment: "prod" }), 400, "invalid_parameter", /^environment: /);
    expectFailure(await owner.post(`${BASE}/run`, { environment: "test", now: true }), 400, "unknown_parameter");
    expect(await server.db.reflectionRun.count({ where: { orgId } })).toBe(0);
  });
});

interface CraftedEvent {
  id: string;
  environment: string;
  process: string;
  action: string;
  createdAt: Date;
}

/** Events as a run records them, written straight to the table (a run over crafted memories makes the same rows). */
async function craftEvents(orgId: string, events: CraftedEvent[]): Promise<void> {
  await server.db.reflectionEvent.createMany({
    data: events.map((event, i) => ({
      ...event,
      orgId,
      runId: "rfr_crafted",
      memoryId: i % 3 === 0 ? null : `mem_${i}`,
      relatedId: event.action === "suppressed_duplicate" ? "mem_survivor" : null,
      reason: `reason ${i}`,
      details: i % 2 === 0 ? JSON.stringify({ similarity: 0.9, index: i }) : null,
    })),
  });
}

describe("events", () => {
  const start = Date.now() - 10 * 24 * 60 * MINUTE;
  let orgId: string;
  let member: SessionClient;
  let production: CraftedEvent[];
  const kinds = [
    ["duplicates", "suppressed_duplicate"],
    ["duplicates", "reinforced_survivor"],
    ["staleness", "flagged_stale"],
    ["candidates", "promoted"],
    ["candidates", "expired"],
  ] as const;

  beforeAll(async () => {
    orgId = await server.newOrg();
    member = await server.signedIn(orgId, "member");
    // Nine events a minute apart, two of them at the same moment (ordered by id then).
    production = Array.from({ length: 9 }, (_, i) => ({
      id: `rfe_p${String(i).padStart(2, "0")}`,
      environment: "production",
      process: kinds[i % kinds.length]![0],
      action: kinds[i % kinds.length]![1],
      createdAt: new Date(start + (i === 5 ? 4 : i) * MINUTE),
    }));
    await craftEvents(orgId, [
      ...production,
      { id: "rfe_t00", environment: "test", process: "duplicates", action: "suppressed_duplicate", createdAt: new Date(start + 3 * MINUTE) },
      { id: "rfe_t01", environment: "test", process: "staleness", action: "flagged_stale", createdAt: new Date(start + 100 * MINUTE) },
    ]);
    await craftEvents(await server.newOrg(), [{ id: "rfe_other", environment: "production", process: "duplicates", action: "suppressed_duplicate", createdAt: new Date(start + 2 * MINUTE) }]);
  });

  const newestFirst = (events: CraftedEvent[]) => [...events].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1)).map((event) => event.id);

  it("lists the environment's events newest first, a page at a time, to a null cursor", async () => {
    const { pages, items } = await allPages(member, `${BASE}/events?limit=4`, "events");
    expect(pages).toEqual([4, 4, 1]);
    expect(items.map((event) => event.id)).toEqual(newestFirst(production));
    expect(items.find((event) => event.id === "rfe_p00")).toEqual({
      id: "rfe_p00",
      environment: "production",
      runId: "rfr_crafted",
      process: "duplicates",
      action: "suppressed_duplicate",
      memoryId: null,
      relatedId: "mem_survivor",
      reason: "reason 0",
      details: { similarity: 0.9, index: 0 },
      createdAt: new Date(start).toISOString(),
    });
    const exact = await member.get(`${BASE}/events?limit=9`);
    expect({ length: exact.body.events.length, nextCursor: exact.body.nextCursor }).toEqual({ length: 9, nextCursor: null });
    const byDefault = await member.get(`${BASE}/events`);
    expect(byDefault.body.events.map((event: { id: string }) => event.id)).toEqual(newestFirst(production));
  });

  it("filters by process, action and time range, paging within the filter", async () => {
    const ids = async (query: string) => (await allPages(member, `${BASE}/events?${query}`, "events")).items.map((event) => event.id);
    expect(await ids("process=duplicates&limit=1")).toEqual(newestFirst(production.filter((event) => event.process === "duplicates")));
    expect(await ids("action=flagged_stale")).toEqual(newestFirst(production.filter((event) => event.action === "flagged_stale")));
    expect(await ids("process=candidates&action=expired")).toEqual(newestFirst(production.filter((event) => event.action === "expired")));
    expect(await ids("process=activation")).toEqual([]);
    // From included, to excluded.
    const from = new Date(start + 2 * MINUTE).toISOString();
    const to = new Date(start + 6 * MINUTE).toISOString();
    const inRange = production.filter((event) => event.createdAt.getTime() >= start + 2 * MINUTE && event.createdAt.getTime() < start + 6 * MINUTE);
    expect(await ids(`from=${from}&to=${to}&limit=2`)).toEqual(newestFirst(inRange));
    expect(await ids(`environment=test`)).toEqual(["rfe_t01", "rfe_t00"]);
    expect(await ids(`environment=staging`)).toEqual([]);
  });

  it("refuses cursors it did not hand out, and bad filters, naming the field", async () => {
    const get = (query: string) => member.get(`${BASE}/events?${query}`);
    const encoded = (value: string) => Buffer.from(value).toString("base64url");
    for (const cursor of ["garbage!", "Zm9v", encoded("{}"), encoded('["2026-11-20", "rfe_x"]'), encoded('["2026-11-20T10:00:00.000Z", 5]'), encoded('["not a date", "x"]'), encoded("[]"), "%00", "=="]) {
      expectFailure(await get(`cursor=${cursor}`), 400, "invalid_parameter", /^cursor: /);
    }
    expectFailure(await get(`cursor=${"a".repeat(201)}`), 400, "invalid_parameter", /^cursor: /);
    for (const limit of ["0", "201", "abc", "1.5", "-1"]) expectFailure(await get(`limit=${limit}`), 400, "invalid_parameter", /^limit: /);
    expectFailure(await get("process=decay"), 400, "invalid_parameter", /^process: /);
    expectFailure(await get("action=deleted"), 400, "invalid_parameter", /^action: /);
    expectFailure(await get("from=yesterday"), 400, "invalid_parameter", /^from: /);
    // Times no backend can compare (Postgres has no year 0) are refused the same on both, never a 500.
    expectFailure(await get("from=0000-01-01T00:00:00Z"), 400, "invalid_parameter", /^from: /);
    expectFailure(await get("to=0000-06-01T00:00:00Z"), 400, "invalid_parameter", /^to: /);
    for (const path of ["/metrics", "/metrics/trend"]) {
      expectFailure(await member.get(`${BASE}${path}?to=0001-01-01`), 400, "invalid_parameter", /^from: /);
      expectFailure(await member.get(`${BASE}${path}?from=0000-12-31&to=0001-01-05`), 400, "invalid_parameter", /^from: /);
    }
    expect((await member.get(`${BASE}/metrics/trend?from=0001-01-01&to=0001-01-30`)).status).toBe(200);
    expectFailure(await get("environment=prod"), 400, "invalid_parameter", /^environment: /);
    expectFailure(await get("environment=test&environment=staging"), 400, "invalid_parameter", /^environment: /);
    expectFailure(await get("page=2"), 400, "unknown_parameter");
  });
});

describe("audits", () => {
  it("lists one audit per run, newest first, a page at a time, with counts and errors", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const start = Date.now() - 5 * 24 * 60 * MINUTE;
    const crafted = Array.from({ length: 4 }, (_, i) => ({
      id: `rfr_crafted${i}`,
      orgId,
      environment: "production",
      trigger: "schedule",
      status: i === 1 ? "failed" : "completed",
      startedAt: new Date(start + i * 60 * MINUTE),
      finishedAt: new Date(start + i * 60 * MINUTE + MINUTE),
      counts: JSON.stringify({ duplicates: { examined: 10 + i, actions: i } }),
      errors: JSON.stringify(i === 1 ? [{ process: "staleness", message: "the database went away" }] : []),
      progress: JSON.stringify({ done: ["duplicates"] }),
    }));
    await server.db.reflectionRun.createMany({ data: [...crafted, { ...crafted[0]!, id: "rfr_craftedtest", environment: "test" }] });
    const latest = await runToEnd(owner);

    const { pages, items } = await allPages(owner, `${BASE}/audits?limit=2`, "audits");
    expect(pages).toEqual([2, 2, 1]);
    expect(items.map((audit) => audit.id)).toEqual([latest, "rfr_crafted3", "rfr_crafted2", "rfr_crafted1", "rfr_crafted0"]);
    expect(items[3]).toEqual({
      id: "rfr_crafted1",
      environment: "production",
      trigger: "schedule",
      triggeredBy: null,
      status: "failed",
      startedAt: crafted[1]!.startedAt.toISOString(),
      finishedAt: crafted[1]!.finishedAt.toISOString(),
      counts: { duplicates: { examined: 11, actions: 1 } },
      errors: [{ process: "staleness", message: "the database went away" }],
    });
    const test = await owner.get(`${BASE}/audits?environment=test`);
    expect(test.body.audits.map((audit: { id: string }) => audit.id)).toEqual(["rfr_craftedtest"]);
    expectFailure(await owner.get(`${BASE}/audits?cursor=nonsense!`), 400, "invalid_parameter", /^cursor: /);
    expectFailure(await owner.get(`${BASE}/audits?process=duplicates`), 400, "unknown_parameter");
  });
});

describe("environments", () => {
  it("keep apart: a run over test shows only in test's audits and events, and changes nothing in production", async () => {
    const orgId = await server.newOrg();
    const owner = await server.signedIn(orgId, "owner");
    const productionToken = await server.newToken(orgId);
    const testToken = await server.newToken(orgId, { environment: "test" });
    for (const [token, text] of [
      [productionToken, "Deploys of payments go through the blue pipeline."],
      [productionToken, "Deploys of payments go through the blue pipeline!"],
      [testToken, "Deploys of payments go through the green pipeline."],
      [testToken, "Deploys of payments go through the green pipeline!"],
    ] as const) {
      expect((await rawRequest(server.url, "/v1/memory", { token, body: JSON.stringify({ text, confidence: 0.3 }) })).status).toBe(201);
    }
    const productionBefore = {
      memories: await server.db.memory.findMany({ where: { orgId, environment: "production" }, orderBy: { id: "asc" } }),
      summary: (await owner.get(`${BASE}/metrics/summary`)).body,
      distribution: (await owner.get(`${BASE}/metrics/distribution`)).body,
    };

    const auditId = await runToEnd(owner, "test");
    expect((await owner.get(`${BASE}/audits?environment=test`)).body.audits.map((a: { id: string }) => a.id)).toEqual([auditId]);
    expect((await owner.get(`${BASE}/audits`)).body.audits).toEqual([]);
    expect((await owner.get(`${BASE}/events`)).body.events).toEqual([]);
    // The run did something in test (the two near-identical memories there are merged), all of it in test.
    const [testAudit] = (await owner.get(`${BASE}/audits?environment=test`)).body.audits;
    expect(testAudit).toMatchObject({ id: auditId, status: "completed", errors: [] });
    const testEvents = (await owner.get(`${BASE}/events?environment=test`)).body.events;
    expect(testEvents.length).toBeGreaterThan(0);
    expect(testEvents.every((event: { environment: string; runId: string }) => event.environment === "test" && event.runId === auditId)).toBe(true);
    const testTrend = (await owner.get(`${BASE}/metrics/trend?environment=test`)).body.days;
    expect(testTrend.reduce((sum: number, day: { reflectionActions: number }) => sum + day.reflectionActions, 0)).toBe(testEvents.length);
    expect(await server.db.reflectionEvent.count({ where: { orgId, environment: { not: "test" } } })).toBe(0);

    expect({
      memories: await server.db.memory.findMany({ where: { orgId, environment: "production" }, orderBy: { id: "asc" } }),
      summary: (await owner.get(`${BASE}/metrics/summary`)).body,
      distribution: (await owner.get(`${BASE}/metrics/distribution`)).body,
    }).toEqual(productionBefore);
    const trend = (await owner.get(`${BASE}/metrics/trend`)).body.days;
    expect(trend.reduce((sum: number, day: { reflectionActions: number }) => sum + day.reflectionActions, 0)).toBe(0);
  });
});
