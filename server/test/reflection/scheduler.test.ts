import type { TEnvironment, TReflectionProcess } from "@engram/contract";
import { rawRequest, startTestServer, type TestServer } from "@engram/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFromEnv } from "../../src/config";
import { openStore } from "../../src/db/store";
import type { ReflectionProcess } from "../../src/domain/reflection/process";
import type { ReflectionScope } from "../../src/domain/reflection/records";
import { reflectionRunner } from "../../src/domain/reflection/runner";
import { reflectionScheduler } from "../../src/domain/reflection/scheduler";
import type { Store } from "../../src/domain/store";

/**
 * The scheduler over a real database: runs start per organization and environment when their interval has
 * passed and not before, organizations that turned reflection off are left alone, abandoned runs are taken
 * over, and two processes scheduling at once start one run per scope. Ticks are called directly with a clock
 * the test moves; the last test lets a real server tick on its own.
 */

const MINUTE = 60_000;

function manualClock(start = new Date("2026-11-24T09:00:00.000Z")) {
  let now = start.getTime();
  const clock = () => new Date(now);
  return Object.assign(clock, { advance: (ms: number) => (now += ms) });
}

function gate() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return { release, released };
}

interface Call {
  runId: string;
  scope: ReflectionScope;
}

function recordingProcess(calls: Call[], hold?: Promise<void>, name: TReflectionProcess = "duplicates"): ReflectionProcess {
  return {
    name,
    async run(context) {
      calls.push({ runId: context.runId, scope: context.scope });
      await hold;
      return { examined: 1, actions: 0 };
    },
  };
}

describe("reflection scheduler", () => {
  let server: TestServer;
  let store: Store;
  let otherStore: Store;

  beforeAll(async () => {
    server = await startTestServer();
    store = server.services.store;
    otherStore = await openStore(server.database);
  });
  afterAll(async () => {
    await otherStore?.close();
    await server?.stop();
  });

  /** An organization with one memory in each environment named, written over HTTP. */
  async function organizationWith(environments: TEnvironment[]): Promise<string> {
    const orgId = await server.newOrg();
    for (const environment of environments) {
      const token = await server.newToken(orgId, { environment });
      const res = await rawRequest(server.url, "/v1/memory", { token, body: JSON.stringify({ text: `The ${environment} queue drains nightly.` }) });
      expect(res.status).toBe(201);
    }
    return orgId;
  }

  const key = (scope: ReflectionScope) => `${scope.orgId}/${scope.environment}`;
  /** The scopes of `orgIds` among those a tick started, sorted. */
  const mine = (scopes: ReflectionScope[], ...orgIds: string[]) => scopes.filter((scope) => orgIds.includes(scope.orgId)).map(key).sort();

  it("starts a run in each environment that has memories once its interval has passed, and not before", async () => {
    const clock = manualClock();
    const calls: Call[] = [];
    const runner = reflectionRunner(store, { clock, processes: [recordingProcess(calls)] });
    const scheduler = reflectionScheduler(store, runner, { clock, tickMs: MINUTE, concurrency: 100 });
    const orgId = await organizationWith(["production", "test"]);
    const empty = await server.newOrg();

    const first = await scheduler.tick();
    await runner.idle();
    expect(mine(first.started, orgId, empty)).toEqual([`${orgId}/production`, `${orgId}/test`]);
    const runs = await server.db.reflectionRun.findMany({ where: { orgId } });
    expect(runs.map((run) => [run.environment, run.trigger, run.triggeredBy, run.status]).sort()).toEqual([
      ["production", "schedule", null, "completed"],
      ["test", "schedule", null, "completed"],
    ]);
    // Each run worked in its own environment only.
    for (const run of runs) expect(calls.find((call) => call.runId === run.id)?.scope).toEqual({ orgId, environment: run.environment });

    expect(mine((await scheduler.tick()).started, orgId)).toEqual([]);
    clock.advance(59 * MINUTE);
    expect(mine((await scheduler.tick()).started, orgId)).toEqual([]);
    clock.advance(MINUTE);
    expect(mine((await scheduler.tick()).started, orgId)).toEqual([`${orgId}/production`, `${orgId}/test`]);
    await runner.idle();
    expect(await server.db.reflectionRun.count({ where: { orgId } })).toBe(4);
    expect(await server.db.reflectionRun.count({ where: { orgId: empty } })).toBe(0);
  });

  it("leaves organizations that turned reflection off alone, and follows each organization's interval", async () => {
    const clock = manualClock();
    const runner = reflectionRunner(store, { clock, processes: [recordingProcess([])] });
    const scheduler = reflectionScheduler(store, runner, { clock, tickMs: MINUTE, concurrency: 100 });
    const off = await organizationWith(["production"]);
    const often = await organizationWith(["production"]);
    const hourly = await organizationWith(["production"]);
    expect(await store.reflectionSettings.save(off, { enabled: false }, 0, clock(), "test")).toBe(true);
    expect(await store.reflectionSettings.save(often, { intervalMinutes: 5 }, 0, clock(), "test")).toBe(true);

    expect(mine((await scheduler.tick()).started, off, often, hourly)).toEqual([`${often}/production`, `${hourly}/production`].sort());
    await runner.idle();
    clock.advance(5 * MINUTE);
    expect(mine((await scheduler.tick()).started, off, often, hourly)).toEqual([`${often}/production`]);
    await runner.idle();
    clock.advance(2 * 60 * MINUTE);
    expect(mine((await scheduler.tick()).started, off, often, hourly)).toEqual([`${often}/production`, `${hourly}/production`].sort());
    await runner.idle();
    expect(await server.db.reflectionRun.count({ where: { orgId: off } })).toBe(0);

    // Turned off later: no more runs.
    expect(await store.reflectionSettings.save(hourly, { enabled: false }, 0, clock(), "test")).toBe(true);
    clock.advance(3 * 60 * MINUTE);
    expect(mine((await scheduler.tick()).started, off, hourly)).toEqual([]);
  });

  it("skips, silently, a due scope whose run is still going", async () => {
    const clock = manualClock();
    const held = gate();
    // Its lease outlasts the test's jumps of the clock: the run is alive, not abandoned.
    const runner = reflectionRunner(store, { clock, leaseMs: 60 * MINUTE, processes: [recordingProcess([], held.released)] });
    const errors: unknown[] = [];
    const scheduler = reflectionScheduler(store, runner, { clock, tickMs: MINUTE, concurrency: 100, onError: (error) => errors.push(error) });
    const orgId = await organizationWith(["staging"]);
    expect(await store.reflectionSettings.save(orgId, { intervalMinutes: 5 }, 0, clock(), "test")).toBe(true);

    expect(mine((await scheduler.tick()).started, orgId)).toEqual([`${orgId}/staging`]);
    clock.advance(6 * MINUTE);
    // Due again, but the first run has not ended: the start is refused and the tick goes on.
    const otherRunner = reflectionRunner(otherStore, { clock, processes: [recordingProcess([])] });
    const again = reflectionScheduler(otherStore, otherRunner, { clock, tickMs: MINUTE, concurrency: 100 });
    expect(mine((await again.tick()).started, orgId)).toEqual([]);
    expect(mine((await scheduler.tick()).started, orgId)).toEqual([]);
    expect(errors).toEqual([]);
    held.release();
    await Promise.all([runner.idle(), otherRunner.idle()]);
    expect(await server.db.reflectionRun.count({ where: { orgId } })).toBe(1);
  });

  it("of two processes scheduling at once, one starts each scope", async () => {
    const clock = manualClock();
    const held = gate();
    const calls: Call[] = [];
    const schedulers = [store, otherStore].map((each) => {
      const runner = reflectionRunner(each, { clock, processes: [recordingProcess(calls, held.released)] });
      return { runner, scheduler: reflectionScheduler(each, runner, { clock, tickMs: MINUTE, concurrency: 100 }) };
    });
    const orgIds = [await organizationWith(["production", "test"]), await organizationWith(["production"])];

    const ticks = await Promise.all(schedulers.map(({ scheduler }) => scheduler.tick()));
    const started = ticks.flatMap((tick) => mine(tick.started, ...orgIds)).sort();
    expect(started).toEqual([`${orgIds[0]}/production`, `${orgIds[0]}/test`, `${orgIds[1]}/production`].sort());
    held.release();
    await Promise.all(schedulers.map(({ runner }) => runner.idle()));
    for (const orgId of orgIds) {
      const runs = await server.db.reflectionRun.findMany({ where: { orgId } });
      expect(new Set(runs.map((run) => run.environment)).size).toBe(runs.length);
      expect(runs.every((run) => run.status === "completed")).toBe(true);
    }
  });

  it("starts no more runs than its places allow, and takes over abandoned runs first", async () => {
    const clock = manualClock();
    // A run left by a process that died: its lease (one minute) passes and nobody renews it.
    const hung = gate();
    const dead = reflectionRunner(otherStore, { clock: manualClock(clock()), processes: [recordingProcess([], hung.released)] });
    const abandonedOrg = await organizationWith(["production"]);
    const abandoned = await dead.start({ orgId: abandonedOrg, environment: "production" }, "person", "usr_1");
    const waiting = await organizationWith(["production"]);

    const held = gate();
    const calls: Call[] = [];
    const runner = reflectionRunner(store, { clock, processes: [recordingProcess(calls, held.released)] });
    const scheduler = reflectionScheduler(store, runner, { clock, tickMs: MINUTE, concurrency: 1 });
    clock.advance(2 * MINUTE);

    expect(await scheduler.tick()).toEqual({ recovered: 1, started: [] });
    await expect.poll(() => calls.map((call) => call.runId)).toEqual([abandoned.id]);
    // Its one place is taken: nothing more starts, whatever is due.
    expect(await scheduler.tick()).toEqual({ recovered: 0, started: [] });
    held.release();
    await runner.idle();
    expect(await store.reflectionRuns.find({ orgId: abandonedOrg, environment: "production" }, abandoned.id)).toMatchObject({ status: "completed", leaseOwner: null });

    // One run at a time until the waiting organization's turn (other organizations may be due before it).
    for (let turn = 0; ; turn++) {
      expect(turn).toBeLessThan(50);
      const next = await scheduler.tick();
      expect(next.started).toHaveLength(1);
      await runner.idle();
      if (next.started[0]!.orgId === waiting) break;
    }
    hung.release();
    await dead.idle();
  });

  it("with scheduled runs off, still finishes abandoned runs", async () => {
    const clock = manualClock();
    const hung = gate();
    const dead = reflectionRunner(otherStore, { clock: manualClock(clock()), processes: [recordingProcess([], hung.released)] });
    const orgId = await organizationWith(["production", "test"]);
    const abandoned = await dead.start({ orgId, environment: "test" }, "person", "usr_1");
    const runner = reflectionRunner(store, { clock, processes: [recordingProcess([])] });
    const scheduler = reflectionScheduler(store, runner, { clock, tickMs: MINUTE, concurrency: 100, startDue: false });
    clock.advance(2 * MINUTE);

    expect(await scheduler.tick()).toEqual({ recovered: 1, started: [] });
    await runner.idle();
    expect(await server.db.reflectionRun.findMany({ where: { orgId }, select: { id: true, status: true } })).toEqual([{ id: abandoned.id, status: "completed" }]);
    hung.release();
    await dead.idle();
  });

  it("runs in a server on its own, on the configured tick, and the server stops cleanly", async () => {
    const own = await startTestServer({ reflection: { tickMs: 50, startDue: true } });
    try {
      const { orgId, token } = await own.newTenant();
      expect((await rawRequest(own.url, "/v1/memory", { token, body: JSON.stringify({ text: "Reflection runs on a schedule." }) })).status).toBe(201);
      await expect
        .poll(() => own.db.reflectionRun.findMany({ where: { orgId }, select: { environment: true, trigger: true, status: true } }), { timeout: 10_000, interval: 100 })
        .toEqual([{ environment: "production", trigger: "schedule", status: "completed" }]);
    } finally {
      await own.stop();
    }
  });
});

describe("reflection scheduler configuration", () => {
  it("ticks every minute by default; ENGRAM_REFLECTION=off keeps only the takeover of abandoned runs", () => {
    expect(configFromEnv({}).reflection).toEqual({ tickMs: 60_000, startDue: true });
    expect(configFromEnv({ ENGRAM_REFLECTION: "off", ENGRAM_REFLECTION_TICK_MS: "5000" }).reflection).toEqual({ tickMs: 5_000, startDue: false });
    expect(() => configFromEnv({ ENGRAM_REFLECTION: "no" })).toThrow('ENGRAM_REFLECTION must be on or off, got "no"');
    expect(() => configFromEnv({ ENGRAM_REFLECTION_TICK_MS: "0" })).toThrow('ENGRAM_REFLECTION_TICK_MS must be a whole number of milliseconds from 1 to 2147483647, got "0"');
  });
});
