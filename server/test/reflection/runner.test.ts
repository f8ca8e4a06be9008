import type { TReflectionProcess } from "@engram/contract";
import { rawRequest, startTestServer, type TestServer } from "@engram/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/db/store";
import type { ReflectionProcess } from "../../src/domain/reflection/process";
import type { ReflectionScope } from "../../src/domain/reflection/records";
import { reflectionRunner } from "../../src/domain/reflection/runner";
import type { Store } from "../../src/domain/store";

/**
 * The runner over a real database with small test processes: progress saved per process, one running run per
 * scope (the database's one-running index), a run whose process died taken over after its lease, and a run
 * handed over when its process stops. "Another server process" is a second store: its own connections.
 */

/** A point a test process waits at until the test lets it go. */
function gate() {
  let release!: () => void;
  let enter!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const entered = new Promise<void>((resolve) => (enter = resolve));
  return { release, enter, released, entered };
}
type Gate = ReturnType<typeof gate>;

/** A clock a test moves by hand. */
function manualClock(start = new Date("2026-11-24T09:00:00.000Z")) {
  let now = start.getTime();
  const clock = () => new Date(now);
  return Object.assign(clock, { advance: (ms: number) => (now += ms) });
}

interface Call {
  process: TReflectionProcess;
  runId: string;
  scope: ReflectionScope;
  batches: number;
  finished: boolean;
}

/** Test processes that record each call; `hold` waits at a gate, `fail` throws, `batches` pauses between batches. */
function testProcess(name: TReflectionProcess, calls: Call[], options: { hold?: Gate; fail?: string; batches?: number } = {}): ReflectionProcess {
  return {
    name,
    async run(context) {
      const call: Call = { process: name, runId: context.runId, scope: context.scope, batches: 0, finished: false };
      calls.push(call);
      if (options.hold) {
        options.hold.enter();
        await options.hold.released;
      }
      if (options.fail) throw new Error(options.fail);
      for (; call.batches < (options.batches ?? 0); call.batches++) {
        await context.pause();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      call.finished = true;
      return { examined: 10 + name.length, actions: name.length };
    },
  };
}

const countsOf = (name: TReflectionProcess) => ({ examined: 10 + name.length, actions: name.length });

describe("reflection runner", () => {
  let server: TestServer;
  let otherStore: Store;
  let store: Store;

  beforeAll(async () => {
    server = await startTestServer();
    store = server.services.store;
    otherStore = await openStore(server.database);
  });
  afterAll(async () => {
    await otherStore?.close();
    await server?.stop();
  });

  const production = async (): Promise<ReflectionScope> => ({ orgId: await server.newOrg(), environment: "production" });
  const runsOf = (scope: ReflectionScope) => server.db.reflectionRun.findMany({ where: { orgId: scope.orgId, environment: scope.environment } });

  it("goes through the processes in order, saving each one's counts and progress as it finishes", async () => {
    const clock = manualClock();
    const calls: Call[] = [];
    const held = gate();
    const runner = reflectionRunner(store, {
      clock,
      processes: [testProcess("duplicates", calls), testProcess("contradictions", calls, { hold: held }), testProcess("activation", calls)],
    });
    const scope = await production();
    const started = await runner.start(scope, "person", "usr_1");
    expect(started).toMatchObject({ ...scope, status: "running", trigger: "person", triggeredBy: "usr_1", startedAt: clock(), leaseOwner: runner.owner });

    await held.entered;
    const midway = await store.reflectionRuns.find(scope, started.id);
    expect(midway).toMatchObject({ status: "running", progress: { done: ["duplicates"] }, counts: { duplicates: countsOf("duplicates") }, finishedAt: null });
    expect(midway!.leaseExpiresAt!.getTime()).toBeGreaterThan(clock().getTime());

    clock.advance(1500);
    held.release();
    await runner.idle();
    expect(calls.map((call) => call.process)).toEqual(["duplicates", "contradictions", "activation"]);
    expect(calls.every((call) => call.runId === started.id && call.scope.orgId === scope.orgId && call.scope.environment === "production")).toBe(true);
    expect(await store.reflectionRuns.find(scope, started.id)).toMatchObject({
      status: "completed",
      finishedAt: clock(),
      progress: { done: ["duplicates", "contradictions", "activation"] },
      counts: { duplicates: countsOf("duplicates"), contradictions: countsOf("contradictions"), activation: countsOf("activation") },
      errors: [],
      leaseOwner: null,
      leaseExpiresAt: null,
    });
  });

  it("skips the processes the organization turned off, and stops at a failing process with its error in the audit", async () => {
    const clock = manualClock();
    const calls: Call[] = [];
    const failures: unknown[] = [];
    const runner = reflectionRunner(store, {
      clock,
      processes: [testProcess("duplicates", calls), testProcess("staleness", calls, { fail: "staleness broke" }), testProcess("activation", calls)],
      onError: (error) => failures.push(error),
    });
    const off = await production();
    expect(await store.reflectionSettings.save(off.orgId, { processes: { duplicates: { enabled: false } } }, 0, clock(), "test")).toBe(true);
    const skipped = await runner.start(off, "schedule", null);
    await runner.idle();
    expect(await store.reflectionRuns.find(off, skipped.id)).toMatchObject({ status: "failed", progress: { done: ["duplicates", "staleness"] } });
    const audit = (await store.reflectionRuns.find(off, skipped.id))!;
    expect(audit.counts).toEqual({});
    expect(audit.errors).toEqual([{ process: "staleness", message: "staleness broke" }]);
    expect(calls.map((call) => call.process)).toEqual(["staleness"]);
    expect(failures).toHaveLength(1);
  });

  it("answers 409 run_in_progress to a second start in the scope, from this process and another, but not to other environments or organizations", async () => {
    const clock = manualClock();
    const held = gate();
    const calls: Call[] = [];
    const processes = [testProcess("duplicates", calls, { hold: held })];
    const runner = reflectionRunner(store, { clock, processes });
    const other = reflectionRunner(otherStore, { clock, processes: [testProcess("duplicates", calls)] });
    const scope = await production();
    const first = await runner.start(scope, "person", "usr_1");
    await held.entered;

    for (const attempt of [runner, other]) {
      await expect(attempt.start(scope, "person", "usr_2")).rejects.toMatchObject({ code: "run_in_progress" });
    }
    const staging = await other.start({ ...scope, environment: "staging" }, "person", "usr_2");
    const elsewhere = await other.start(await production(), "schedule", null);
    await other.idle();
    expect(staging.id).not.toBe(first.id);
    expect((await otherStore.reflectionRuns.find({ ...scope, environment: "staging" }, staging.id))?.status).toBe("completed");
    expect((await otherStore.reflectionRuns.find({ orgId: elsewhere.orgId, environment: "production" }, elsewhere.id))?.status).toBe("completed");
    expect(await runsOf(scope)).toHaveLength(1);

    held.release();
    await runner.idle();
    // Once the run has ended the scope takes a new one.
    const next = await other.start(scope, "person", "usr_2");
    await other.idle();
    expect((await store.reflectionRuns.find(scope, next.id))?.status).toBe("completed");
  });

  it("of runners in two processes racing to start one scope, exactly one runs", async () => {
    const clock = manualClock();
    const held = gate();
    const calls: Call[] = [];
    const runners = [store, otherStore].map((each) => reflectionRunner(each, { clock, processes: [testProcess("duplicates", calls, { hold: held })] }));
    const scope = await production();

    const attempts = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => runners[i % 2]!.start(scope, "schedule", null)));
    const won = attempts.filter((attempt) => attempt.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const lost of attempts.filter((attempt) => attempt.status === "rejected")) expect(lost.reason).toMatchObject({ code: "run_in_progress" });
    expect(await runsOf(scope)).toHaveLength(1);

    await held.entered;
    held.release();
    await Promise.all(runners.map((runner) => runner.idle()));
    expect(calls).toHaveLength(1);
    expect((await runsOf(scope))[0]).toMatchObject({ status: "completed" });
  });

  it("takes over a run whose process died once its lease has passed, and finishes it from the first unfinished process", async () => {
    // The dead process: its clock stands still (it never renews into the present) and its second process hangs.
    const deadClock = manualClock();
    const hung = gate();
    const deadCalls: Call[] = [];
    const dead = reflectionRunner(store, {
      clock: deadClock,
      leaseMs: 60_000,
      processes: [testProcess("duplicates", deadCalls), testProcess("contradictions", deadCalls, { hold: hung }), testProcess("staleness", deadCalls)],
    });
    const scope = await production();
    const run = await dead.start(scope, "schedule", null);
    await hung.entered;

    const clock = manualClock(deadClock());
    const calls: Call[] = [];
    const processes = [testProcess("duplicates", calls), testProcess("contradictions", calls), testProcess("staleness", calls)];
    const rescuers = [reflectionRunner(otherStore, { clock, processes }), reflectionRunner(otherStore, { clock, processes })];

    clock.advance(59_000);
    expect(await rescuers[0]!.recover(5)).toBe(0);
    clock.advance(2_000);
    // Two processes look for abandoned runs at once: one takes it.
    const taken = await Promise.all(rescuers.map((rescuer) => rescuer.recover(5)));
    expect(taken.reduce((sum, n) => sum + n, 0)).toBe(1);
    await Promise.all(rescuers.map((rescuer) => rescuer.idle()));

    // Duplicates finished before the crash and is not run again; the hung process is run afresh.
    expect(calls.map((call) => call.process)).toEqual(["contradictions", "staleness"]);
    const finished = await store.reflectionRuns.find(scope, run.id);
    expect(finished).toMatchObject({
      status: "completed",
      finishedAt: clock(),
      progress: { done: ["duplicates", "contradictions", "staleness"] },
      counts: { duplicates: countsOf("duplicates"), contradictions: countsOf("contradictions"), staleness: countsOf("staleness") },
      leaseOwner: null,
    });

    // The old owner coming back to life changes nothing: its lease is gone.
    hung.release();
    await dead.idle();
    expect(deadCalls.map((call) => call.process)).toEqual(["duplicates", "contradictions"]);
    expect(await store.reflectionRuns.find(scope, run.id)).toEqual(finished);
    expect(await runsOf(scope)).toHaveLength(1);
  });

  it("stops a run whose lease another process took at its next batch", async () => {
    const slowClock = manualClock();
    const slowCalls: Call[] = [];
    // A process whose clock fell behind: its renewals (every 100 ms) never reach past the other's present.
    const slow = reflectionRunner(store, { clock: slowClock, leaseMs: 300, processes: [testProcess("duplicates", slowCalls, { batches: 2_000 })] });
    const scope = await production();
    const run = await slow.start(scope, "schedule", null);
    await expect.poll(() => slowCalls.length).toBe(1);

    const clock = manualClock(slowClock());
    clock.advance(3_600_000);
    const calls: Call[] = [];
    const rescuer = reflectionRunner(otherStore, { clock, processes: [testProcess("duplicates", calls)] });
    expect(await rescuer.recover()).toBe(1);
    await rescuer.idle();
    expect(await store.reflectionRuns.find(scope, run.id)).toMatchObject({ status: "completed", counts: { duplicates: countsOf("duplicates") } });

    // Its next renewal finds the lease gone, and the batch after that ends its work without writing.
    await slow.idle();
    expect(slowCalls[0]).toMatchObject({ finished: false });
    expect(slowCalls[0]!.batches).toBeLessThan(2_000);
    expect(await store.reflectionRuns.find(scope, run.id)).toMatchObject({ status: "completed", finishedAt: clock(), counts: { duplicates: countsOf("duplicates") } });
  });

  it("stop() ends runs at their next batch and hands them over at once; no run starts after it", async () => {
    const clock = manualClock();
    const calls: Call[] = [];
    const stopping = reflectionRunner(store, { clock, processes: [testProcess("duplicates", calls), testProcess("candidates", calls, { batches: 2_000 })] });
    const scope = await production();
    const run = await stopping.start(scope, "schedule", null);
    await expect.poll(() => calls.length).toBe(2);

    stopping.stop();
    await stopping.idle();
    expect(calls[1]).toMatchObject({ process: "candidates", finished: false });
    const handedOver = await store.reflectionRuns.find(scope, run.id);
    expect(handedOver).toMatchObject({ status: "running", progress: { done: ["duplicates"] }, leaseOwner: stopping.owner });
    expect(handedOver!.leaseExpiresAt!.getTime()).toBeLessThanOrEqual(clock().getTime());
    await expect(stopping.start(await production(), "person", "usr_1")).rejects.toMatchObject({ code: "service_unavailable" });
    expect(await stopping.recover(5)).toBe(0);

    // The next process takes it over without waiting for a lease to pass.
    clock.advance(1);
    const next = reflectionRunner(otherStore, { clock, processes: [testProcess("duplicates", calls), testProcess("candidates", calls)] });
    expect(await next.recover()).toBe(1);
    await next.idle();
    expect(calls.map((call) => call.process)).toEqual(["duplicates", "candidates", "candidates"]);
    expect(await store.reflectionRuns.find(scope, run.id)).toMatchObject({ status: "completed", progress: { done: ["duplicates", "candidates"] } });
  });
});

describe("reflection runs with the real processes", () => {
  const DAY = 24 * 60 * 60 * 1000;
  const clock = manualClock(new Date(Date.now() - 200 * DAY));
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ now: clock });
    // The database itself refuses to delete a memory, or to change or delete a history row or a reflection event.
    const statements =
      server.database.provider === "postgres"
        ? [
            `CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused: % on %', TG_OP, TG_TABLE_NAME; END $$`,
            `CREATE TRIGGER refuse_memory_delete BEFORE DELETE ON "Memory" FOR EACH ROW EXECUTE FUNCTION refuse_change()`,
            `CREATE TRIGGER refuse_history_change BEFORE UPDATE OR DELETE ON "MemoryHistory" FOR EACH ROW EXECUTE FUNCTION refuse_change()`,
            `CREATE TRIGGER refuse_event_change BEFORE UPDATE OR DELETE ON "ReflectionEvent" FOR EACH ROW EXECUTE FUNCTION refuse_change()`,
          ]
        : [
            `CREATE TRIGGER refuse_memory_delete BEFORE DELETE ON "Memory" BEGIN SELECT RAISE(ABORT, 'refused: DELETE on Memory'); END`,
            `CREATE TRIGGER refuse_history_update BEFORE UPDATE ON "MemoryHistory" BEGIN SELECT RAISE(ABORT, 'refused: UPDATE on MemoryHistory'); END`,
            `CREATE TRIGGER refuse_history_delete BEFORE DELETE ON "MemoryHistory" BEGIN SELECT RAISE(ABORT, 'refused: DELETE on MemoryHistory'); END`,
            `CREATE TRIGGER refuse_event_update BEFORE UPDATE ON "ReflectionEvent" BEGIN SELECT RAISE(ABORT, 'refused: UPDATE on ReflectionEvent'); END`,
            `CREATE TRIGGER refuse_event_delete BEFORE DELETE ON "ReflectionEvent" BEGIN SELECT RAISE(ABORT, 'refused: DELETE on ReflectionEvent'); END`,
          ];
    for (const statement of statements) await server.db.$executeRawUnsafe(statement);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("never deletes a memory or its history: rows only grow, and a second run changes nothing", async () => {
    const { orgId, token } = await server.newTenant();
    const post = async (path: string, body: object) => {
      const res = await rawRequest(server.url, path, { token, body: JSON.stringify(body) });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const encode = async (body: object): Promise<string> => (await post("/v1/memory", body)).memory.id;

    // 200 days ago: two copies of one memory, a low-confidence one nobody uses, a version and an open incident.
    const original = await encode({ text: "The payments-api deploy window is Tuesday at 10:00 UTC.", subject: "payments-api", confidence: 0.8 });
    const copy = await encode({ text: "The payments-api deploy window is Tuesday at 10:00 UTC.", subject: "payments-api", confidence: 0.8 });
    const stale = await encode({ text: "Grafana dashboards live in the legacy folder.", subject: "grafana", confidence: 0.3 });
    await encode({ text: "checkout-web runs version v1.2 in production.", subject: "checkout-web", confidence: 0.9 });
    await encode({ text: "Incident INC-7 is open: checkout-web returns 5xx.", subject: "INC-7", memoryKind: "event", confidence: 0.9 });
    await post("/v1/memory/events", { type: "incident.opened", text: "INC-7 opened: checkout-web 5xx", subject: "INC-7" });
    const [candidate] = (await post("/v1/memory/events", { type: "review.finding", text: "ledger retries without jitter", subject: "ledger" })).candidateIds as string[];
    clock.advance(DAY);
    await encode({ text: "checkout-web runs version v1.3 in production.", subject: "checkout-web", confidence: 0.9 });
    await post("/v1/memory/events", { type: "incident.resolved", text: "INC-7 resolved: config rolled back", subject: "INC-7" });
    clock.advance(199 * DAY);

    // The guard works: the database refuses these writes.
    await expect(server.db.$executeRaw`DELETE FROM "Memory" WHERE "id" = ${original}`).rejects.toThrow(/refused/);
    await expect(server.db.memoryHistory.deleteMany({ where: { memoryId: original } })).rejects.toThrow(/refused/);

    const memories = () => server.db.memory.findMany({ where: { orgId }, orderBy: { id: "asc" } });
    const history = () => server.db.memoryHistory.findMany({ where: { memory: { orgId } }, orderBy: { id: "asc" } });
    const events = () => server.db.reflectionEvent.findMany({ where: { orgId }, orderBy: { id: "asc" } });
    const [memoriesBefore, historyBefore] = [await memories(), await history()];

    const scope = { orgId, environment: "production" as const };
    const runner = server.services.reflectionRunner;
    const first = await runner.start(scope, "person", "usr_test");
    await runner.idle();
    const audit = (await server.services.store.reflectionRuns.find(scope, first.id))!;
    expect(audit).toMatchObject({ status: "completed", errors: [] });
    expect(Object.keys(audit.counts).sort()).toEqual([...runner.processNames()].sort());
    expect(Object.values(audit.counts).reduce((sum, counts) => sum + counts.actions, 0)).toBeGreaterThan(0);

    const [memoriesAfter, historyAfter, eventsAfter] = [await memories(), await history(), await events()];
    // Every memory is still there, and every history row as it was; reflection only added rows.
    expect(memoriesAfter.map((memory) => memory.id)).toEqual(expect.arrayContaining(memoriesBefore.map((memory) => memory.id)));
    expect(memoriesAfter.length).toBeGreaterThanOrEqual(memoriesBefore.length);
    expect(historyAfter).toEqual(expect.arrayContaining(historyBefore));
    expect(historyAfter.length).toBeGreaterThan(historyBefore.length);
    const added = historyAfter.filter((row) => !historyBefore.some((before) => before.id === row.id));
    expect(added.every((row) => row.actor === "reflection" && row.requestId === first.id && Boolean(row.reason))).toBe(true);
    expect(eventsAfter.length).toBeGreaterThan(0);

    // What changed changed in place: the copy suppressed with a link to the survivor, the stale one flagged,
    // the forgotten candidate tombstoned; all still readable with their provenance.
    const byId = new Map(memoriesAfter.map((memory) => [memory.id, memory]));
    const merged = [byId.get(original)!, byId.get(copy)!];
    expect(merged.map((memory) => memory.state).sort()).toEqual(["durable", "suppressed"]);
    const suppressed = merged.find((memory) => memory.state === "suppressed")!;
    expect(suppressed.duplicateOfId).toBe(merged.find((memory) => memory.state === "durable")!.id);
    expect(byId.get(stale)!.staleSince).not.toBeNull();
    expect(byId.get(candidate!)!.state).toBe("tombstoned");
    for (const id of [original, copy, stale]) {
      const res = await rawRequest(server.url, `/v1/memory/${id}/provenance`, { method: "GET", token });
      expect(res.status).toBe(200);
    }

    // Run again over what the first run left: nothing changes.
    const second = await runner.start(scope, "person", "usr_test");
    await runner.idle();
    expect(await server.services.store.reflectionRuns.find(scope, second.id)).toMatchObject({ status: "completed", errors: [] });
    expect(await history()).toEqual(historyAfter);
    expect(await events()).toEqual(eventsAfter);
    expect((await memories()).map(({ id, state, duplicateOfId, supersededBy, staleSince }) => ({ id, state, duplicateOfId, supersededBy, staleSince }))).toEqual(
      memoriesAfter.map(({ id, state, duplicateOfId, supersededBy, staleSince }) => ({ id, state, duplicateOfId, supersededBy, staleSince })),
    );
  });
});
