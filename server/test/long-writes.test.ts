import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@engram/test-support";
import type { Caller } from "../src/domain/access/caller";
import { TEXT_WRITE_LIMITS } from "../src/domain/writes/batch-queue";
import { countTurns } from "./event-loop-turns";

/**
 * Writes that arrive together share a transaction, which on SQLite runs in one turn of the event loop, text
 * analysis and full-text indexing included. Many texts at their longest must not make one long turn: they are
 * written a bounded number of characters at a time, with turns for other requests between.
 */
const AT_ONCE = 24;
const LENGTH = 8_000;
/** Texts of distinct words, the most a text of this length gives the full-text index to take. */
const distinctWords = (seed: number) => {
  const words: string[] = [];
  for (let i = 0, size = 0; size < LENGTH; i++) {
    const word = Array.from({ length: 6 }, (_, k) => String.fromCharCode(97 + ((Math.imul(seed * 1_000 + i + 1, 2654435761) >>> (k * 5)) % 26))).join("");
    words.push(word);
    size += word.length + 1;
  }
  return words.join(" ").slice(0, LENGTH);
};
/** Batches the texts need at the limit's characters: fewer turns than this mean some batch took more. */
const batchesNeeded = Math.ceil(AT_ONCE / Math.floor(TEXT_WRITE_LIMITS.maxWeight / LENGTH));

let server: TestServer;
let caller: Caller;
let orgId: string;
beforeAll(async () => {
  server = await startTestServer();
  const tenant = await server.newTenant();
  orgId = tenant.orgId;
  caller = await server.services.tokens.authenticate(tenant.token, "t");
});
afterAll(() => server?.stop());

const storedMemories = () => server.db.memory.count({ where: { orgId } });

describe("many writes of the longest texts at once", () => {
  it("are encoded a bounded batch at a time, the event loop turning between batches", async () => {
    const before = await storedMemories();
    const turns = countTurns();
    const answers = await Promise.all(
      Array.from({ length: AT_ONCE }, (_, i) => server.services.memories.encode(caller, null, { text: distinctWords(i), memoryKind: "fact", confidence: 0.9 }, undefined)),
    );
    expect(turns.stop()).toBeGreaterThanOrEqual(batchesNeeded);
    expect(answers.map((answer) => answer.status)).toEqual(Array(AT_ONCE).fill(201));
    expect(await storedMemories()).toBe(before + AT_ONCE);
  });

  it("are ingested as events a bounded batch at a time, the event loop turning between batches", async () => {
    const before = await server.db.businessEvent.count({ where: { orgId } });
    const turns = countTurns();
    const answers = await Promise.all(
      Array.from({ length: AT_ONCE }, (_, i) => server.services.events.ingest(caller, { type: "note.recorded", text: distinctWords(100 + i), subject: "ledger" }, undefined)),
    );
    expect(turns.stop()).toBeGreaterThanOrEqual(batchesNeeded);
    expect(answers.map((answer) => answer.status)).toEqual(Array(AT_ONCE).fill(201));
    expect(await server.db.businessEvent.count({ where: { orgId } })).toBe(before + AT_ONCE);
  });
});
