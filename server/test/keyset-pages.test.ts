import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@engram/test-support";
import type { PagePosition } from "../src/domain/kernel/page-cursor";
import type { EmbeddingTask } from "../src/domain/retrieval/ports";
import { dialectFor } from "../src/db/dialect";
import { embeddingRepository } from "../src/db/tables/memory-embeddings";
import { memoryRepository } from "../src/db/tables/memories/memory-repository";

/**
 * Lists paged by (time, id), oldest or newest first, must hand out every row exactly once however the page size
 * falls across rows written in the same millisecond: the id breaks the tie. The clock here stands still for ten
 * memories at a time, so most page boundaries fall inside a tie.
 */
let server: TestServer;
let orgId: string;
const stored: Array<{ id: string; createdAt: Date }> = [];

beforeAll(async () => {
  let tick = 0;
  const start = Date.parse("2026-03-01T09:00:00.000Z");
  server = await startTestServer({ now: () => new Date(start + Math.floor(tick++ / 10) * 1_000) });
  const tenant = await server.newTenant();
  orgId = tenant.orgId;
  const caller = await server.services.tokens.authenticate(tenant.token, "t");
  for (let i = 0; i < 35; i++) {
    const { body: { memory } } = await server.services.memories.encode(caller, null, { text: `Entry ${i} about keyset pages`, memoryKind: "fact", confidence: 0.8 }, undefined);
    stored.push({ id: memory.id, createdAt: new Date(memory.createdAt) });
  }
}, 60_000);
afterAll(async () => server?.stop());

const byTimeThenId = (a: { id: string; createdAt: Date }, b: { id: string; createdAt: Date }) =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Every page of a list, read `size` rows at a time from where the last page ended. */
async function everyPage<T>(size: number, read: (after: T | null) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  for (let after: T | null = null, page = await read(null); page.length > 0; page = await read(after)) {
    rows.push(...page);
    after = page.at(-1)!;
    if (page.length < size) break;
  }
  return rows;
}

describe("keyset pages", () => {
  it.each([1, 3, 7, 10, 34, 35, 64])("oldest first (the embeddings sweep), %i a page: every memory once, in order", async (size) => {
    const embeddings = embeddingRepository(server.db);
    const rows = await everyPage(size, (after: EmbeddingTask | null) => embeddings.missing("concepts-1", after, size));
    const ours = rows.filter((row) => row.orgId === orgId).map((row) => row.memoryId);
    expect(ours).toEqual([...stored].sort(byTimeThenId).map((memory) => memory.id));
  });

  it.each([1, 3, 7, 10, 34, 35, 64])("newest first (the memory explorer), %i a page: every memory once, in order", async (size) => {
    const memories = memoryRepository(server.db, dialectFor(server.database.provider));
    const scope = { orgId, environment: "production" as const, state: "durable" as const };
    const rows = await everyPage(size, (after: PagePosition | null) => memories.listNewest(scope, after, size));
    expect(rows.map((memory) => memory.id)).toEqual([...stored].sort(byTimeThenId).reverse().map((memory) => memory.id));
  });
});
