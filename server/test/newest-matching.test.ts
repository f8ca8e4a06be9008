import { randomUUID } from "node:crypto";
import { rawRequest, startTestServer, type TestServer } from "@engram/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../src/db/store";
import type { PagePosition } from "../src/domain/kernel/page-cursor";
import { newestMatching } from "../src/domain/memory/newest-matching";
import type { MemoryRepository } from "../src/domain/memory/ports";
import type { MemoryRecord } from "../src/domain/memory/records";
import type { Store } from "../src/domain/store";
import { countTurns } from "./event-loop-turns";

/**
 * The console's filtered listing walks the scope index in small reads with a budget per request: a filter that
 * rarely matches answers short pages with cursors instead of reading a whole environment at once, and paging
 * on still yields every match exactly once, newest first. Run against the real repository with a tiny budget.
 */

let server: TestServer;
let store: Store;
let orgId: string;
const all: Array<{ id: string; subject: string; state: "durable" | "suppressed" }> = [];

beforeAll(async () => {
  server = await startTestServer({ rateLimits: "off" });
  store = await openStore(server.database);
  ({ orgId } = await server.newTenant().then(async ({ orgId, token }) => {
    // 60 memories, oldest first; every seventh is about "rare", and every fifth is suppressed.
    for (let i = 0; i < 60; i++) {
      const subject = i % 7 === 3 ? "rare" : "common";
      const written = await rawRequest(server.url, "/v1/memory", { token, body: JSON.stringify({ text: `Memory number ${i} ${randomUUID()}`, subject }) });
      expect(written.status).toBe(201);
      const id = written.body.memory.id as string;
      let state: "durable" | "suppressed" = "durable";
      if (i % 5 === 0) {
        expect((await rawRequest(server.url, `/v1/memory/${id}/suppress`, { token, body: "{}" })).status).toBe(200);
        state = "suppressed";
      }
      all.unshift({ id, subject, state });
    }
    return { orgId };
  }));
});
afterAll(async () => {
  await store?.close();
  await server?.stop();
});

/** The real repository, counting the rows each call reads. */
function counted(): { memories: Pick<MemoryRepository, "listNewest">; reads: number[] } {
  const reads: number[] = [];
  return {
    reads,
    memories: {
      async listNewest(scope, before, limit) {
        const rows = await store.memories.listNewest(scope, before, limit);
        reads.push(rows.length);
        return rows;
      },
    },
  };
}

const scope = () => ({ orgId, environment: "production" as const, states: ["durable", "suppressed"] as const });
const rare = (memory: MemoryRecord) => memory.subject === "rare";

async function everyPage(limit: number, limits: { step: number; budget: number }) {
  const pages: Array<{ ids: string[]; rowsRead: number }> = [];
  let before: PagePosition | null = null;
  do {
    const { memories, reads } = counted();
    const page = await newestMatching(memories, scope(), rare, before, limit, limits);
    pages.push({ ids: page.items.map((m) => m.id), rowsRead: reads.reduce((a, b) => a + b, 0) });
    before = page.next;
  } while (before && pages.length < 100);
  return pages;
}

describe("newestMatching", () => {
  it("yields every match exactly once, newest first, across states, whatever the budget cuts", async () => {
    const expected = all.filter((m) => m.subject === "rare").map((m) => m.id);
    expect(expected.length).toBe(9);
    for (const limits of [{ step: 5, budget: 10 }, { step: 3, budget: 3 }, { step: 500, budget: 5000 }]) {
      for (const limit of [1, 2, 4, 50]) {
        const pages = await everyPage(limit, limits);
        expect(pages.flatMap((p) => p.ids), `${JSON.stringify(limits)} limit ${limit}`).toEqual(expected);
        for (const page of pages) expect(page.ids.length).toBeLessThanOrEqual(limit);
      }
    }
  });

  it("reads at most the budget per state in one request, answering a short page with a cursor", async () => {
    const { memories, reads } = counted();
    const page = await newestMatching(memories, scope(), () => false, null, 10, { step: 5, budget: 10 });
    expect(page.items).toEqual([]);
    expect(page.next).not.toBeNull();
    expect(reads.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2 * 10);
    expect(Math.max(...reads)).toBeLessThanOrEqual(5);
  });

  it("gives the event loop a turn between reads, so a long walk holds no other request", async () => {
    // One read per turn.
    const turns = countTurns();
    const { memories, reads } = counted();
    await newestMatching(memories, scope(), () => false, null, 10, { step: 5, budget: 30 });
    expect(turns.stop()).toBeGreaterThanOrEqual(reads.length - 2);
    expect(reads.length).toBeGreaterThan(4);
  });

  it("answers an unfiltered page in one read per state of just enough rows", async () => {
    const { memories, reads } = counted();
    const page = await newestMatching(memories, scope(), null, null, 7);
    expect(page.items.map((m) => m.id)).toEqual(all.slice(0, 7).map((m) => m.id));
    expect(reads).toEqual([8, 8]);
    const rest = await newestMatching(counted().memories, scope(), null, page.next, 100);
    expect(rest.items.map((m) => m.id)).toEqual(all.slice(7).map((m) => m.id));
    expect(rest.next).toBeNull();
  });
});
