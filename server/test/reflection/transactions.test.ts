import Database from "better-sqlite3";
import { databaseUnderTest, rawRequest, startTestServer, type TestServer } from "@engram/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
    expect(await server.services.store.reflectionTransaction((memories) => change(memories, id))).toBe(true);
    expect(await recorded(id)).toEqual({ state: "suppressed", activation: null, history: 1, events: 1 });
    // A compare-and-set: the memory is no longer durable, so the same change applies no more.
    expect(await server.services.store.reflectionTransaction((memories) => change(memories, id))).toBe(false);
    expect(await recorded(id)).toEqual({ state: "suppressed", activation: null, history: 1, events: 1 });
  });

  it("roll back whole when their work fails after a wait, while others asked for meanwhile run on their own", async () => {
    const texts = ["The ledger closes at midnight UTC.", "The ledger reopens at one.", "Refunds post within a day."];
    const [failing, beside, snapshot] = (await Promise.all(texts.map(encode))) as [string, string, string];
    const { store } = server.services;
    const first = store.reflectionTransaction(async (memories) => {
      await change(memories, failing);
      await sleep(50);
      throw new Error("the work failed");
    });
    const second = store.reflectionTransaction((memories) => change(memories, beside));
    const outside = store.reflectionMemories.setActivations(scope, [{ id: snapshot, activation: 1.25 }], new Date());
    await expect(first).rejects.toThrow("the work failed");
    expect(await second).toBe(true);
    expect(await outside).toBe(1);
    expect(await recorded(failing)).toEqual({ state: "durable", activation: null, history: 0, events: 0 });
    expect(await recorded(beside)).toEqual({ state: "suppressed", activation: null, history: 1, events: 1 });
    expect(await recorded(snapshot)).toEqual({ state: "durable", activation: 1.25, history: 0, events: 0 });
  });

  it.runIf(databaseUnderTest === "sqlite")("wait out another connection's write lock, then commit", async () => {
    const id = await encode("Invoices are numbered per country.");
    const database = server.database as { provider: "sqlite"; file: string };
    const other = new Database(database.file);
    try {
      other.exec("BEGIN IMMEDIATE");
      const waiting = server.services.store.reflectionTransaction((memories) => change(memories, id));
      await sleep(200);
      expect((await recorded(id)).state).toBe("durable");
      other.exec("COMMIT");
      expect(await waiting).toBe(true);
    } finally {
      other.close();
    }
    expect(await recorded(id)).toEqual({ state: "suppressed", activation: null, history: 1, events: 1 });
  });
});
