import type { TEncodeBody, TEnvironment, TReflectionSettings } from "@engram/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, startTestServer, type TestServer } from "@engram/test-support";
import { reflectionContext } from "../../src/domain/reflection/context";
import { stalenessProcess } from "../../src/domain/reflection/processes/staleness";
import { DEFAULT_REFLECTION_SETTINGS } from "../../src/domain/reflection/settings";

const DAY_MS = 24 * 60 * 60 * 1000;
let now = new Date("2026-01-05T12:00:00.000Z");
const later = (days: number) => {
  now = new Date(now.getTime() + days * DAY_MS);
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ now: () => now });
});
afterAll(() => server?.stop());

/** One staleness pass over an environment, inside a real run. Defaults: stale after 90 days under confidence 0.5. */
async function runStaleness(orgId: string, options: { environment?: TEnvironment; staleness?: Partial<TReflectionSettings["processes"]["staleness"]> } = {}) {
  const { store } = server.services;
  const scope = { orgId, environment: options.environment ?? "production" };
  const settings = structuredClone(DEFAULT_REFLECTION_SETTINGS);
  Object.assign(settings.processes.staleness, options.staleness);
  const run = await store.reflectionRuns.start(scope, { trigger: "person", triggeredBy: null, owner: "test", leaseUntil: new Date(now.getTime() + 60_000), at: now });
  const result = await stalenessProcess.run(reflectionContext(store, { scope, runId: run!.id, settings, clock: () => now }));
  await store.reflectionRuns.finish(run!.id, "test", "completed", now);
  return { ...result, runId: run!.id };
}

function writer(token: string) {
  const api = apiClient(server.url, token);
  return {
    api,
    async encode(body: TEncodeBody) {
      const res = await api.memory.encode({ body });
      if (res.status !== 201) throw new Error(`encode answered ${res.status}`);
      return res.body.memory.id;
    },
    async reinforce(id: string) {
      expect((await api.memory.reinforce({ params: { id }, body: {} })).status).toBe(200);
    },
  };
}

const staleSince = async (id: string) => (await server.db.memory.findUniqueOrThrow({ where: { id } })).staleSince;

async function snapshot(orgId: string) {
  return {
    memories: await server.db.memory.findMany({ where: { orgId }, orderBy: { id: "asc" }, select: { id: true, state: true, staleSince: true, updatedAt: true } }),
    history: await server.db.memoryHistory.count({ where: { memory: { orgId } } }),
    events: await server.db.reflectionEvent.count({ where: { orgId } }),
  };
}

describe("staleness", () => {
  it("flags long-unused, low-confidence durable memories, with the days and confidence in the reason", async () => {
    now = new Date("2026-01-05T12:00:00.000Z");
    const { orgId, token } = await server.newTenant();
    const w = writer(token);
    const unused = await w.encode({ text: "The old build cache lives on host cache-3.", confidence: 0.3 });
    const confident = await w.encode({ text: "Releases are tagged from main.", confidence: 0.8 });
    const atThreshold = await w.encode({ text: "Staging resets on Sundays.", confidence: 0.5 });
    const used = await w.encode({ text: "The VPN needs the new client.", confidence: 0.3 });
    const suppressed = await w.encode({ text: "A suppressed guess about DNS.", confidence: 0.1 });
    expect((await w.api.memory.suppress({ params: { id: suppressed }, body: {} })).status).toBe(200);
    later(50);
    await w.reinforce(used);
    later(10);
    const recent = await w.encode({ text: "Lint runs in CI.", confidence: 0.2 });
    later(31);

    const result = await runStaleness(orgId);
    expect(result).toMatchObject({ examined: 5, actions: 1 });
    expect(await staleSince(unused)).toEqual(now);
    for (const id of [confident, atThreshold, used, recent, suppressed]) expect(await staleSince(id), id).toBeNull();

    const provenance = await w.api.memory.provenance({ params: { id: unused } });
    if (provenance.status !== 200) throw new Error(`provenance answered ${provenance.status}`);
    expect(provenance.body.memory.state).toBe("durable");
    const last = provenance.body.history.at(-1)!;
    expect(last).toMatchObject({ action: "flagged", fromState: "durable", toState: "durable", actor: "reflection", requestId: result.runId });
    expect(last.reason).toContain("unused for 91 days");
    expect(last.reason).toContain("confidence 0.30");
    expect(await server.db.reflectionEvent.findFirstOrThrow({ where: { memoryId: unused } })).toMatchObject({ process: "staleness", action: "flagged_stale", reason: last.reason });

    // A flagged memory is still retrieved: the flag marks it for review, it hides nothing.
    const res = await w.api.memory.retrieve({ body: { query: "build cache host" } });
    expect(res.status === 200 && res.body.memories.map((m) => m.id)).toContain(unused);
  });

  it("a second run changes nothing; a memory used again has its flag cleared, once", async () => {
    now = new Date("2026-01-05T12:00:00.000Z");
    const { orgId, token } = await server.newTenant();
    const w = writer(token);
    const id = await w.encode({ text: "Quarterly report template is in the wiki.", confidence: 0.4 });
    later(120);
    expect(await runStaleness(orgId)).toMatchObject({ actions: 1 });
    const flaggedAt = now;

    const afterFirst = await snapshot(orgId);
    later(1);
    expect(await runStaleness(orgId)).toMatchObject({ examined: 1, actions: 0 });
    expect(await snapshot(orgId)).toEqual(afterFirst);
    expect(await staleSince(id)).toEqual(flaggedAt);

    await w.reinforce(id);
    later(1);
    expect(await runStaleness(orgId)).toMatchObject({ actions: 1 });
    expect(await staleSince(id)).toBeNull();
    const event = await server.db.reflectionEvent.findFirstOrThrow({ where: { memoryId: id }, orderBy: { createdAt: "desc" } });
    expect(event.reason).toMatch(/^stale flag cleared: used 1 day ago/);
    expect(JSON.parse(event.details!)).toMatchObject({ stale: false });

    const cleared = await snapshot(orgId);
    expect(await runStaleness(orgId)).toMatchObject({ actions: 0 });
    expect(await snapshot(orgId)).toEqual(cleared);
  });

  it("follows the settings: days and confidence threshold", async () => {
    now = new Date("2026-01-05T12:00:00.000Z");
    const { orgId, token } = await server.newTenant();
    const w = writer(token);
    const id = await w.encode({ text: "Team lunch is on Thursdays.", confidence: 0.8 });
    later(10);
    expect(await runStaleness(orgId, { staleness: { staleAfterDays: 10 } })).toMatchObject({ actions: 0 });
    expect(await runStaleness(orgId, { staleness: { staleAfterDays: 11, maxConfidence: 0.9 } })).toMatchObject({ actions: 0 });
    expect(await runStaleness(orgId, { staleness: { staleAfterDays: 10, maxConfidence: 0.9 } })).toMatchObject({ actions: 1 });
    expect(await staleSince(id)).toEqual(now);
    // The threshold lowered again: the memory no longer meets the rule, and the flag follows it.
    expect(await runStaleness(orgId, { staleness: { staleAfterDays: 10 } })).toMatchObject({ actions: 1 });
    expect(await staleSince(id)).toBeNull();
  });

  it("leaves other environments and organizations untouched, and pages through more than one batch", async () => {
    now = new Date("2026-01-05T12:00:00.000Z");
    const { orgId, token } = await server.newTenant();
    const other = await server.newTenant();
    const testToken = await server.newToken(orgId, { environment: "test" });
    const production = writer(token);
    const MANY = 520;
    for (let i = 0; i < MANY; i += 40) {
      await Promise.all(Array.from({ length: Math.min(40, MANY - i) }, (_, j) => production.encode({ text: `Old note number ${i + j} about the archive.`, confidence: 0.1 })));
    }
    const testId = await writer(testToken).encode({ text: "Old note in Test.", confidence: 0.1 });
    const otherId = await writer(other.token).encode({ text: "Old note elsewhere.", confidence: 0.1 });
    later(100);
    const before = await snapshot(other.orgId);

    expect(await runStaleness(orgId)).toEqual(expect.objectContaining({ examined: MANY, actions: MANY }));
    expect(await server.db.memory.count({ where: { orgId, environment: "production", staleSince: now } })).toBe(MANY);
    expect(await staleSince(testId)).toBeNull();
    expect(await staleSince(otherId)).toBeNull();
    expect(await snapshot(other.orgId)).toEqual(before);
    // Nothing reflection did removed a memory or a history row.
    expect(await server.db.memory.count({ where: { orgId } })).toBe(MANY + 1);
    expect(await server.db.memoryHistory.count({ where: { memory: { orgId }, actor: "reflection" } })).toBe(MANY);
  });
});
