import Database from "better-sqlite3";
import { databaseUnderTest, rawRequest, startTestServer, type TestServer } from "@engram/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitMeter } from "../../src/domain/kernel/wait-meter";
import type { ReflectionChange, ReflectionMemoryRepository } from "../../src/domain/reflection/ports";
import type { ReflectionScope } from "../../src/domain/reflection/records";

/**
 * Reflection changes memories in transactions of its own on the driver (on SQLite on a connection of its own).
 * Each commits whole or not at all, and on SQLite its connection's users take turns, so that a statement asked
 * for while a transaction waits never runs inside it (nor is rolled back with it).
 */

let server: TestServer;
let token: string;
let scope: ReflectionScope;
beforeAll(async () => {
  server = await startTestServer({ rateLimits: "off" });
  const orgId = await server.newOrg({ plan: "spark" });
  token = await server.newToken(orgId);
  scope = { orgId, environment: "production" };
});
afterAll(() => server?.stop());

async function encode(text: string): Promise<string> {
  const res = await rawRequest(server.url, "/v1/memory", { token, body: JSON.stringify({ text, memoryKind: "fact" }) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.memory.id;
}

/** Holds the event loop for `ms`, as a step of work does. */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const runId = "rfr_transactions";
const suppress = (memoryId: string): ReflectionChange & { from: "durable"; to: "suppressed" } => ({
  memoryId,
  process: "duplicates",
  action: "suppressed_duplicate",
  reason: "a duplicate",
  from: "durable",
  to: "suppressed",
});
const change = (memories: ReflectionMemoryRepository, memoryId: string) => memories.changeState(scope, runId, suppress(memoryId), new Date());

/** A memory's state, activation, reflection's history rows and its events. */
async function recorded(memoryId: string) {
  const memory = await server.db.memory.findUniqueOrThrow({ where: { id: memoryId } });
  const history = await server.db.memoryHistory.count({ where: { memoryId, actor: "reflection" } });
  const events = await server.db.reflectionEvent.count({ where: { memoryId } });
  return { state: memory.state, activation: memory.activation, history, events };
}

describe("reflection's transactions", () => {
  it("commit a change with its history row and its event", async () => {
    const id = await encode("The billing service retries failed charges twice.");
    expect(await server.services.store.reflection().transaction((memories) => change(memories, id))).toBe(true);
    expect(await recorded(id)).toEqual({ state: "suppressed", activation: null, history: 1, events: 1 });
    // A compare-and-set: the memory is no longer durable, so the same change applies no more.
    expect(await server.services.store.reflection().transaction((memories) => change(memories, id))).toBe(false);
    expect(await recorded(id)).toEqual({ state: "suppressed", activation: null, history: 1, events: 1 });
  });

  it("roll back whole when their work fails after a wait, while others asked for meanwhile run on their own", async () => {
    const texts = ["The ledger closes at midnight UTC.", "The ledger reopens at one.", "Refunds post within a day."];
    const [failing, beside, snapshot] = (await Promise.all(texts.map(encode))) as [string, string, string];
    const { store } = server.services;
    const first = store.reflection().transaction(async (memories) => {
      await change(memories, failing);
      await sleep(50);
      throw new Error("the work failed");
    });
    const second = store.reflection().transaction((memories) => change(memories, beside));
    const outside = store.reflection().memories.setActivations(scope, [{ id: snapshot, activation: 1.25 }], new Date());
    await expect(first).rejects.toThrow("the work failed");
    expect(await second).toBe(true);
    expect(await outside).toBe(1);
    expect(await recorded(failing)).toEqual({ state: "durable", activation: null, history: 0, events: 0 });
    expect(await recorded(beside)).toEqual({ state: "suppressed", activation: null, history: 1, events: 1 });
    expect(await recorded(snapshot)).toEqual({ state: "durable", activation: 1.25, history: 0, events: 0 });
  });

  it("time their waits off the event loop for a run's pauses, and not the time their work holds it", async () => {
    const id = await encode("Payouts settle on business days.");
    const waits = waitMeter();
    const reflection = server.services.store.reflection(waits);
    // A page is read in the store's thread on SQLite, by the server on Postgres: the loop is free meanwhile.
    expect(await reflection.memories.page(scope, ["durable"], null, 10)).not.toEqual([]);
    const afterPage = waits.waited;
    expect(afterPage).toBeGreaterThan(0);
    const started = performance.now();
    const changed = await reflection.transaction(async (memories) => {
      const result = await change(memories, id);
      spin(30);
      return result;
    });
    const took = performance.now() - started;
    expect(changed).toBe(true);
    const waited = waits.waited - afterPage;
    expect(waited).toBeLessThanOrEqual(took - 30);
    // On Postgres every round trip is a wait; on SQLite the statements hold the loop, so only a turn could be.
    if (databaseUnderTest === "postgres") expect(waited).toBeGreaterThan(0);
  });

  it.runIf(databaseUnderTest === "sqlite")("wait out another connection's write lock, then commit, the wait timed as one", async () => {
    const id = await encode("Invoices are numbered per country.");
    const database = server.database as { provider: "sqlite"; file: string };
    const other = new Database(database.file);
    const waits = waitMeter();
    try {
      other.exec("BEGIN IMMEDIATE");
      const waiting = server.services.store.reflection(waits).transaction((memories) => change(memories, id));
      await sleep(200);
      expect((await recorded(id)).state).toBe("durable");
      other.exec("COMMIT");
      expect(await waiting).toBe(true);
    } finally {
      other.close();
    }
    expect(await recorded(id)).toEqual({ state: "suppressed", activation: null, history: 1, events: 1 });
    // The pauses between its tries left the loop to others: a run's pacing must not count them as its work.
    expect(waits.waited).toBeGreaterThan(100);
  });
});
