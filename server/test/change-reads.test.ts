import { apiClient, startTestServer, type TestServer } from "@engram/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MemoryScope } from "../src/domain/memory/ports";
import { sharedChangeReads } from "../src/domain/retrieval/change-reads";
import type { ChangeRange, MemorySearch } from "../src/domain/retrieval/ports";
import { memoryRetrieval } from "../src/domain/retrieval/retrieval";
import type { Store } from "../src/domain/store";

/**
 * After writes, retrieval brings its counts and its held memories up to the scope's version from the change log:
 * one read of the database's log serves them all, each answered exactly as its own read would be.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

async function tenant() {
  const { orgId, token } = await server.newTenant();
  const api = apiClient(server.url, token);
  // Written by an agent, as assistants write: retrieval then also finds each best match's neighbours among the held memories.
  const encode = async (text: string) => {
    const res = await api.memory.encodeForAgent({ params: { agentSlug: "harbour-bot" }, body: { text } });
    if (res.status !== 201) throw new Error(`encode answered ${res.status}`);
    return res.body.memory.id;
  };
  const scope: MemoryScope = { orgId, environment: "production", agentSlug: null };
  const version = async () => (await server.services.store.memories.collectionState(scope)).version;
  return { encode, scope, version };
}

/** The store's change log, counting the reads that reach the database. */
function countedReads() {
  const store = server.services.store;
  const reads = { count: 0 };
  const collectionChanges: MemorySearch["collectionChanges"] = (scope, range) => (reads.count++, store.memories.collectionChanges(scope, range));
  return { reads, collectionChanges, store: { ...store, memories: { ...store.memories, collectionChanges } } as Store };
}

const ranked = (retrieved: Awaited<ReturnType<ReturnType<typeof memoryRetrieval>>>) => retrieved.response.memories.map(({ id, score }) => ({ id, score }));

describe("the change log read once per catch-up", () => {
  it("answers a range inside one it read as the database would, and reads a range it does not hold", async () => {
    const { encode, scope, version } = await tenant();
    const start = await version();
    for (const text of ["Harbour ferry leaves at dawn.", "The dawn ferry is late.", "Harbour closed for the storm."]) await encode(text);
    const now = await version();
    const { reads, collectionChanges } = countedReads();
    const shared = sharedChangeReads(collectionChanges);
    const database = (range: ChangeRange) => server.services.store.memories.collectionChanges(scope, range);
    const wide: ChangeRange = { after: start, upTo: now, limit: 512, maxText: 64 * 1024 };

    expect(await shared(scope, wide)).toEqual(await database(wide));
    for (const after of [start + 1n, start + 2n, now]) {
      const narrower = { ...wide, after, limit: 2_048, maxText: 1024 * 1024 };
      expect(await shared(scope, narrower)).toEqual(await database(narrower));
    }
    expect(reads.count).toBe(1);
    // Within a kept read, but past this range's own bounds: refused, as the database refuses it.
    const tight = { ...wide, after: start + 1n, limit: 1 };
    expect(await database(tight)).toBeNull();
    expect(await shared(scope, tight)).toBeNull();
    const short = { ...wide, after: start + 1n, maxText: 10 };
    expect(await database(short)).toBeNull();
    expect(await shared(scope, short)).toBeNull();
    expect(reads.count).toBe(1);

    // Older than the kept read, or up to another version: read from the database.
    await encode("A fourth memory moves the version.");
    const later = { ...wide, upTo: await version() };
    expect(await shared(scope, later)).toEqual(await database(later));
    expect(reads.count).toBe(2);
    const older = { ...later, after: start - 1n };
    expect(await shared(scope, older)).toEqual(await database(older));
    expect(reads.count).toBe(3);
  });

  it("keeps no read that holds more than its budget", async () => {
    const { encode, scope, version } = await tenant();
    const start = await version();
    for (const text of ["Harbour ferry leaves at dawn.", "The dawn ferry is late."]) await encode(text);
    const { reads, collectionChanges } = countedReads();
    const shared = sharedChangeReads(collectionChanges, 100);
    const wide: ChangeRange = { after: start, upTo: await version(), limit: 512, maxText: 64 * 1024 };
    expect(await shared(scope, wide)).toHaveLength(2);
    expect(await shared(scope, { ...wide, after: start + 1n })).toHaveLength(1);
    expect(reads.count).toBe(2);
  });

  it("reads the log once for a retrieval after writes, and ranks as a retrieval that counts afresh", async () => {
    const { encode, scope } = await tenant();
    for (let i = 0; i < 12; i++) await encode(`Ferry ${i} crosses the harbour${i % 3 === 0 ? " at dawn" : ""}; the crew checks the ropes.`);
    const { reads, store } = countedReads();
    const at = new Date();
    const warm = memoryRetrieval(store, () => at);
    const input = { query: "ferry harbour dawn crew", limit: 10, includeContext: false, contextMode: "full" as const };
    await warm(scope, input);

    for (let i = 0; i < 4; i++) await encode(`The dawn ferry ${i} is late; the harbour crew waits.`);
    const before = reads.count;
    const retrieved = await warm(scope, input);
    expect(reads.count - before).toBe(1);
    expect(ranked(retrieved)).toEqual(ranked(await memoryRetrieval(server.services.store, () => at)(scope, input)));
  });
});
