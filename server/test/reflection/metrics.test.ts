import { ZApiFailure } from "@engram/contract";
import { rawRequest, type SessionResponse, startTestServer, type TestServer } from "@engram/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReflectionScope } from "../../src/domain/reflection/records";

/**
 * The metrics routes over memories written through /v1 at known times, kinds and confidences, reinforced,
 * suppressed, deleted, retrieved, promoted and changed by reflection's own repository: every figure of the
 * summary, the trend and the histograms is checked exactly. The server's clock is moved by hand over 400 days.
 */

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** Noon (UTC) of a day after tomorrow: whole days later are noon too, and cookies stay unexpired. */
const T0 = Math.ceil(Date.now() / DAY) * DAY + DAY + 12 * HOUR;
let at = T0;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

let server: TestServer;
let orgId: string;
let token: string;
let testToken: string;
const ids: Record<string, string> = {};
const END = T0 + 400 * DAY;

async function encode(name: string, memoryKind: string, confidence: number, using = token): Promise<string> {
  const res = await rawRequest(server.url, "/v1/memory", { token: using, body: JSON.stringify({ text: `Memory ${name} about the payments service.`, memoryKind, confidence }) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  ids[name] = res.body.memory.id;
  return res.body.memory.id;
}

async function call(path: string, using = token, body: unknown = {}) {
  const res = await rawRequest(server.url, path, { token: using, body: JSON.stringify(body) });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
}

const retrieve = (verb = "retrieve", using = token) => call(`/v1/memory/${verb}`, using, { query: "payments service" });

beforeAll(async () => {
  server = await startTestServer({ rateLimits: "off", now: () => new Date(at) });
  orgId = await server.newOrg({ plan: "spark" });
  token = await server.newToken(orgId);
  testToken = await server.newToken(orgId, { environment: "test" });
  const elsewhere = await server.newTenant();

  await encode("m0", "decision", 0.35);
  at = T0 + 360 * DAY;
  await encode("m1", "fact", 0.9);
  await encode("m2", "fact", 0.7);
  at = T0 + 392 * DAY;
  await encode("m3", "preference", 0.5);
  await encode("m4", "decision", 0.2);
  await encode("m5", "procedure", 0.05);
  at = T0 + 398 * DAY;
  await encode("m6", "event", 1);
  await encode("m7", "observation", 0.62);
  await call(`/v1/memory/${ids.m1}/reinforce`);
  await call(`/v1/memory/${ids.m1}/reinforce`);
  await call(`/v1/memory/${ids.m2}/reinforce`);
  await call(`/v1/memory/${ids.m5}/suppress`);
  expect((await rawRequest(server.url, `/v1/memory/${ids.m4}`, { method: "DELETE", token })).status).toBe(200);
  for (const verb of ["retrieve", "retrieve", "retrieve", "recall", "search"]) await retrieve(verb);
  // Another environment and another organization: never counted here.
  await encode("inTest", "fact", 0.1, testToken);
  await retrieve("retrieve", testToken);
  await encode("elsewhere", "fact", 0.1, elsewhere.token);
  await retrieve("retrieve", elsewhere.token);

  at = END - 2 * HOUR;
  await encode("m9", "fact", 0.15);
  at = END;
  await retrieve();
  const owner = await server.signedIn(orgId, "owner");
  expect((await owner.patch("/api/organization", { writeMode: "candidate" })).status).toBe(200);
  await encode("m8", "observation", 0.8);
  await encode("m10", "procedure", 0.85);
  expect((await owner.post(`/api/memory/candidates/${ids.m10}/promote`, {})).status).toBe(200);

  // What reflection's processes do, through its own repository: a merged duplicate, a stale and a superseded flag.
  const scope: ReflectionScope = { orgId, environment: "production" };
  const runId = "rfr_metrics";
  const now = new Date(END);
  const reflection = (work: Parameters<ReturnType<typeof server.services.store.reflection>["transaction"]>[0]) => server.services.store.reflection().transaction(work);
  await reflection((memories) =>
    memories.changeState(scope, runId, { memoryId: ids.m7!, process: "duplicates", action: "suppressed_duplicate", reason: "duplicate", relatedId: ids.m6, from: "durable", to: "suppressed", links: { duplicateOfId: ids.m6 } }, now),
  );
  await reflection((memories) => memories.flag(scope, runId, { memoryId: ids.m3!, process: "staleness", action: "flagged_stale", reason: "unused", state: "durable", set: { staleSince: now } }, now));
  await reflection((memories) =>
    memories.flag(scope, runId, { memoryId: ids.m2!, process: "contradictions", action: "superseded", reason: "replaced", relatedId: ids.m1, state: "durable", set: { supersededBy: ids.m1 } }, now),
  );
  // Activation snapshots (as the activation process stores them): one past each end of the histogram, one on a
  // suppressed memory (left out).
  for (const [name, activation] of [["m0", 5], ["m1", 2.5], ["m2", -0.3], ["m6", -7], ["m5", 4]] as const) {
    await server.db.memory.update({ where: { id: ids[name] }, data: { activation, activationAt: now } });
  }
  await server.services.usage.flush();
});

afterAll(() => server?.stop());

async function reader() {
  return server.signedIn(orgId, "member");
}

function expectFailure(res: SessionResponse, status: number, code: string, message?: RegExp): void {
  expect({ status: res.status, error: res.body?.error }, JSON.stringify(res.body)).toEqual({ status, error: code });
  expect(ZApiFailure.strict().safeParse(res.body).success, JSON.stringify(res.body)).toBe(true);
  if (message) expect(res.body.message).toMatch(message);
}

const expectedSummary = {
  success: true,
  environment: "production",
  total: 11,
  byState: { candidate: 1, durable: 7, suppressed: 2, tombstoned: 1 },
  byKind: { fact: 3, preference: 1, decision: 2, procedure: 2, event: 1, observation: 2 },
  flagged: { stale: 1, superseded: 1, duplicates: 1 },
};

describe("summary", () => {
  it("counts every state and kind, averages over durable memories, and counts the flags", async () => {
    const res = await (await reader()).get("/api/memory/reflection/metrics/summary");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject(expectedSummary);
    // m0 .35, m1 .9, m2 .7, m3 .5, m6 1, m9 .15, m10 .85
    expect(res.body.averageConfidence).toBeCloseTo(4.45 / 7, 10);
    // Durable memories with a snapshot: m0 5, m1 2.5, m2 -0.3, m6 -7 (m5's is on a suppressed memory).
    expect(res.body.averageActivation).toBeCloseTo(0.2 / 4, 10);
  });

  it("keeps environments apart and answers zeros and nulls where nothing is", async () => {
    const member = await reader();
    const test = await member.get("/api/memory/reflection/metrics/summary?environment=test");
    expect(test.body).toEqual({
      success: true,
      environment: "test",
      total: 1,
      byState: { candidate: 0, durable: 1, suppressed: 0, tombstoned: 0 },
      byKind: { fact: 1, preference: 0, decision: 0, procedure: 0, event: 0, observation: 0 },
      averageActivation: null,
      averageConfidence: 0.1,
      flagged: { stale: 0, superseded: 0, duplicates: 0 },
    });
    const staging = await member.get("/api/memory/reflection/metrics/summary?environment=staging");
    expect(staging.body).toMatchObject({ total: 0, averageActivation: null, averageConfidence: null, byState: { candidate: 0, durable: 0, suppressed: 0, tombstoned: 0 } });
  });
});

describe("trend", () => {
  const zero = { encodes: 0, retrievals: 0, reinforcements: 0, suppressions: 0, promotions: 0, reflectionActions: 0, events: 0 };

  it("answers every day of the range, zeros included, with each series counted on its day", async () => {
    const from = dayOf(T0 + 396 * DAY);
    const to = dayOf(END);
    const res = await (await reader()).get(`/api/memory/reflection/metrics/trend?from=${from}&to=${to}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      success: true,
      environment: "production",
      from,
      to,
      days: [
        { day: dayOf(T0 + 396 * DAY), ...zero },
        { day: dayOf(T0 + 397 * DAY), ...zero },
        // m6, m7; m1 twice and m2; m5 suppressed (m4's deletion is no suppression); retrieve ×3, recall, search.
        { day: dayOf(T0 + 398 * DAY), ...zero, encodes: 2, reinforcements: 3, suppressions: 1, retrievals: 5 },
        { day: dayOf(T0 + 399 * DAY), ...zero },
        // m9, m8 and m10 (candidates are encodes too); m10 promoted; m7 suppressed by reflection; three reflection events.
        { day: dayOf(END), ...zero, encodes: 3, promotions: 1, suppressions: 1, reflectionActions: 3, retrievals: 1 },
      ],
    });
  });

  it("covers the last 30 days by default and reaches back as far as asked", async () => {
    const member = await reader();
    const recent = await member.get("/api/memory/reflection/metrics/trend");
    expect(recent.body.days).toHaveLength(30);
    expect({ from: recent.body.from, to: recent.body.to }).toEqual({ from: dayOf(END - 29 * DAY), to: dayOf(END) });
    const total = (key: string) => recent.body.days.reduce((sum: number, day: Record<string, number>) => sum + day[key]!, 0);
    // m3, m4, m5 (day 392), m6, m7, then m9, m8, m10.
    expect({ encodes: total("encodes"), retrievals: total("retrievals") }).toEqual({ encodes: 8, retrievals: 6 });

    const first = await member.get(`/api/memory/reflection/metrics/trend?from=${dayOf(T0)}&to=${dayOf(T0)}`);
    expect(first.body.days).toEqual([{ day: dayOf(T0), ...zero, encodes: 1 }]);
    const year = await member.get(`/api/memory/reflection/metrics/trend?from=${dayOf(END - 365 * DAY)}&to=${dayOf(END)}`);
    expect(year.body.days).toHaveLength(366);
    expect(year.body.days.reduce((sum: number, day: { encodes: number }) => sum + day.encodes, 0)).toBe(10);

    const test = await member.get(`/api/memory/reflection/metrics/trend?environment=test&from=${dayOf(T0 + 398 * DAY)}&to=${dayOf(T0 + 398 * DAY)}`);
    expect(test.body.days).toEqual([{ day: dayOf(T0 + 398 * DAY), ...zero, encodes: 1, retrievals: 1 }]);
  });

  it("reaches the first and the last day either database stores", async () => {
    const member = await reader();
    const last = await member.get("/api/memory/reflection/metrics/trend?from=9999-12-01&to=9999-12-31");
    expect(last.status).toBe(200);
    expect(last.body.days).toHaveLength(31);
    expect(last.body.days.at(-1)).toEqual({ day: "9999-12-31", ...zero });
    expect((await member.get("/api/memory/reflection/metrics?from=9999-12-31&to=9999-12-31")).status).toBe(200);
    const first = await member.get("/api/memory/reflection/metrics/trend?from=0001-01-01&to=0001-01-02");
    expect(first.status).toBe(200);
    expect(first.body.days).toEqual([{ day: "0001-01-01", ...zero }, { day: "0001-01-02", ...zero }]);
  });

  it("refuses ranges over 366 days, backwards, and days that are not days", async () => {
    const member = await reader();
    const trend = (query: string) => member.get(`/api/memory/reflection/metrics/trend?${query}`);
    expectFailure(await trend(`from=${dayOf(END - 366 * DAY)}&to=${dayOf(END)}`), 400, "invalid_parameter", /^from: .*367 days/);
    expectFailure(await trend(`from=${dayOf(END)}&to=${dayOf(END - DAY)}`), 400, "invalid_parameter", /^from: /);
    expectFailure(await trend("from=2030-02-30"), 400, "invalid_parameter", /^from: 2030-02-30 is not a day/);
    expectFailure(await trend("to=2030-13-01"), 400, "invalid_parameter", /^to: /);
    expectFailure(await trend("from=yesterday"), 400, "invalid_parameter", /^from: /);
    expectFailure(await trend("from=2030-01-01T00:00:00Z"), 400, "invalid_parameter", /^from: /);
    expectFailure(await trend("days=7"), 400, "unknown_parameter");
    expectFailure(await member.get(`/api/memory/reflection/metrics?from=${dayOf(END - 400 * DAY)}`), 400, "invalid_parameter", /^from: /);
  });
});

describe("distribution", () => {
  const histogram = (edges: Array<[number, number | null]>, counts: number[]) => edges.map(([from, to], i) => ({ from, to, count: counts[i] }));
  const activationEdges = Array.from({ length: 10 }, (_, i): [number, number] => [i - 5, i - 4]);
  const confidenceEdges = Array.from({ length: 10 }, (_, i): [number, number] => [i / 10, (i + 1) / 10]);
  const ageEdges: Array<[number, number | null]> = [[0, 1], [1, 7], [7, 30], [30, 90], [90, 365], [365, null]];

  it("buckets durable memories by activation, confidence and age, open ends folded in", async () => {
    const res = await (await reader()).get("/api/memory/reflection/metrics/distribution");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      success: true,
      environment: "production",
      // m6 -7 (below the first edge), m2 -0.3, m1 2.5, m0 5 (the last edge itself); memories without a snapshot are left out.
      activation: histogram(activationEdges, [1, 0, 0, 0, 1, 0, 0, 1, 0, 1]),
      // m9 .15, m0 .35, m3 .5, m2 .7 (on an edge: the bucket above), m10 .85, m1 .9 and m6 1.
      confidence: histogram(confidenceEdges, [0, 1, 0, 1, 0, 1, 0, 1, 1, 2]),
      // m9 and m10 (hours), m6 (2 days), m3 (8), m1 and m2 (40), m0 (400).
      ageDays: histogram(ageEdges, [2, 1, 1, 2, 0, 1]),
    });
  });

  it("answers empty histograms for an environment without durable memories", async () => {
    const res = await (await reader()).get("/api/memory/reflection/metrics/distribution?environment=staging");
    expect([...res.body.activation, ...res.body.confidence, ...res.body.ageDays].every((bucket: { count: number }) => bucket.count === 0)).toBe(true);
  });
});

describe("all metrics at once", () => {
  it("answers the summary, trend and distribution of the separate routes", async () => {
    const member = await reader();
    const range = `from=${dayOf(T0 + 390 * DAY)}&to=${dayOf(END)}`;
    const [all, summary, trend, distribution] = await Promise.all([
      member.get(`/api/memory/reflection/metrics?${range}`),
      member.get("/api/memory/reflection/metrics/summary"),
      member.get(`/api/memory/reflection/metrics/trend?${range}`),
      member.get("/api/memory/reflection/metrics/distribution"),
    ]);
    const { success: _s, ...summaryBody } = summary.body;
    const { success: _t, ...trendBody } = trend.body;
    const { success: _d, ...distributionBody } = distribution.body;
    expect(all.body).toEqual({ success: true, summary: summaryBody, trend: trendBody, distribution: distributionBody });
  });
});

describe("retrieval counts", () => {
  it("are kept per organization, environment and day, written by the counter's flush", async () => {
    const rows = await server.db.dailyUsage.findMany({ where: { orgId }, orderBy: [{ environment: "asc" }, { day: "asc" }] });
    expect(rows.map(({ environment, day, metric, count }) => ({ environment, day, metric, count }))).toEqual([
      { environment: "production", day: dayOf(T0 + 398 * DAY), metric: "retrievals", count: 5 },
      { environment: "production", day: dayOf(END), metric: "retrievals", count: 1 },
      { environment: "test", day: dayOf(T0 + 398 * DAY), metric: "retrievals", count: 1 },
    ]);
  });

  it("add up across flushes and concurrent retrievals without a write per retrieval", async () => {
    const before = await server.db.dailyUsage.findUniqueOrThrow({ where: { orgId_environment_day_metric: { orgId, environment: "production", day: dayOf(END), metric: "retrievals" } } });
    await Promise.all(Array.from({ length: 12 }, () => retrieve()));
    await server.services.usage.flush();
    await Promise.all(Array.from({ length: 3 }, () => retrieve("search")));
    await server.services.usage.flush();
    const after = await server.db.dailyUsage.findUniqueOrThrow({ where: { orgId_environment_day_metric: { orgId, environment: "production", day: dayOf(END), metric: "retrievals" } } });
    expect(after.count - before.count).toBe(15);
  });
});
