import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyzeText, countTerms } from "@engram/retrieval";
import { freshDatabase, startServerOn } from "@engram/test-support";
import { connectPrisma } from "../src/db/prisma";
import type { DatabaseConfig } from "../src/db/config";
import type { Caller } from "../src/domain/access/caller";
import { NEWEST_WALK } from "../src/db/tables/memories/tsvector-search";
import type { MemoryScope } from "../src/domain/memory/ports";
import type { CandidateQuery } from "../src/domain/retrieval/ports";
import type { RunningServer } from "../src/server";

/** The full-text lookups retrieval plans, on this project's database. */
describe("full-text candidate lookups", () => {
  let database: DatabaseConfig;
  let server: RunningServer;
  let caller: Caller;
  let scope: MemoryScope;
  const ids: Record<string, string> = {};
  const lookup = (query: { terms: string[]; order?: CandidateQuery["order"]; limit?: number }, within: MemoryScope = scope) =>
    server.services.store.memories.searchDurable(within, { match: "any", order: "relevance", limit: 10, ...query });
  const lookupAll = (groups: string[][]) => server.services.store.memories.searchDurable(scope, { groups, match: "all", order: "relevance", limit: 10 });

  beforeAll(async () => {
    database = await freshDatabase();
    server = await startServerOn(database);
    const org = await server.services.organizations.create({ name: "lookups" });
    const { token } = await server.services.tokens.create({ orgId: org.id, name: "t", scopes: ["memory:read", "memory:write", "memory:control"], environment: "production" });
    caller = await server.services.tokens.authenticate(token, "t");
    scope = { orgId: org.id, environment: "production", agentSlug: null };
    const texts = {
      oldest: "The ledger service is owned by the payments team.",
      middle: "Ledger deploys run through ArgoCD every weekday.",
      newest: "The ledger service pages the payments team on call.",
      other: "Checkout web is owned by the growth team.",
    };
    // Written one by one, a few milliseconds apart, so their order of indexing and their creation times agree.
    for (const [name, text] of Object.entries(texts)) {
      ids[name] = (await server.services.memories.encode(caller, null, { text, memoryKind: "fact", confidence: 0.8 }, undefined)).body.memory.id;
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
  });
  afterAll(() => server.close());

  const idsOf = (found: Array<{ id: string }>) => found.map((candidate) => candidate.id);

  it("finds memories holding any term, or only those holding a term of every group", async () => {
    expect(new Set(idsOf(await lookup({ terms: ["ledger", "team"] })))).toEqual(new Set([ids.oldest, ids.middle, ids.newest, ids.other]));
    expect(new Set(idsOf(await lookupAll([["ledger"], ["team"]])))).toEqual(new Set([ids.oldest, ids.newest]));
    expect(new Set(idsOf(await lookupAll([["ledger"], ["argocd", "page"]])))).toEqual(new Set([ids.middle, ids.newest]));
  });

  it("orders by recency when asked, stopping at the limit", async () => {
    expect(idsOf(await lookup({ terms: ["ledger"], order: "newest", limit: 2 }))).toEqual([ids.newest, ids.middle]);
  });

  it("keeps to the scope and to durable memories", async () => {
    await server.services.memories.suppress(caller, null, ids.newest!, { reason: "stale" });
    try {
      expect(idsOf(await lookup({ terms: ["ledger"], order: "newest" }))).toEqual([ids.middle, ids.oldest]);
      expect(await lookup({ terms: ["ledger"] }, { ...scope, environment: "staging" })).toEqual([]);
      expect(idsOf(await server.services.store.memories.durableCandidates(scope, [ids.newest!, ids.other!, "mem_missing"]))).toEqual([ids.other]);
    } finally {
      await server.services.memories.restore(caller, null, ids.newest!, { reason: "current again" });
    }
  });

  it("reads a candidate again as it now is, parsing an unchanged one only once", async () => {
    const read = async () => (await lookup({ terms: ["checkout"] })).find((candidate) => candidate.id === ids.other)!;
    const before = await read();
    expect(await read()).toBe(before);
    await server.services.memories.reinforce(caller, null, ids.other!, { reason: "useful" });
    const after = await read();
    expect(after.reinforcementCount).toBe(before.reinforcementCount + 1);
    expect(after.recentUses.length).toBeGreaterThan(before.recentUses.length);
    expect(await read()).toBe(after);
  });

  it("counts a candidate's terms once for its analysis, however its ranking columns change", async () => {
    const own = await server.services.organizations.create({ name: "terms" });
    const { token } = await server.services.tokens.create({ orgId: own.id, name: "t", scopes: ["memory:write", "memory:control"], environment: "production" });
    const writer = await server.services.tokens.authenticate(token, "t");
    const text = "Ledger deploys run through ArgoCD every weekday.";
    const { id } = (await server.services.memories.encode(writer, null, { text, memoryKind: "fact", confidence: 0.8 }, undefined)).body.memory;
    const read = async () => (await lookup({ terms: ["argocd"] }, { orgId: own.id, environment: "production", agentSlug: null })).find((candidate) => candidate.id === id)!;
    const before = await read();
    expect(before.searchTerms).toEqual(countTerms(analyzeText(` ${text}`)));
    // Reinforced, it is a new candidate with the terms already counted (not read again).
    await server.services.memories.reinforce(writer, null, id, { reason: "useful" });
    const reinforced = await read();
    expect(reinforced).not.toBe(before);
    expect(reinforced.reinforcementCount).toBe(before.reinforcementCount + 1);
    expect(reinforced.searchTerms).toBe(before.searchTerms);
    // Re-analysed (as a newer analyser does when the store opens), its terms are read again.
    const db = await connectPrisma(database);
    try {
      const row = await db.memory.findUniqueOrThrow({ where: { id } });
      await db.memory.update({ where: { id }, data: { searchText: `${row.searchText} argocd`, searchVersion: row.searchVersion + 1 } });
    } finally {
      await db.$disconnect();
    }
    const reanalysed = await read();
    expect(reanalysed.searchTerms.counts.get("argocd")).toBe(2);
    expect(reanalysed.searchTerms.length).toBe(before.searchTerms.length + 1);
  });

  it("counts collection statistics within the organization and environment only", async () => {
    const other = await server.services.organizations.create({ name: "neighbour" });
    const { token } = await server.services.tokens.create({ orgId: other.id, name: "t", scopes: ["memory:write"], environment: "production" });
    const neighbour = await server.services.tokens.authenticate(token, "t");
    for (let i = 0; i < 3; i++) await server.services.memories.encode(neighbour, null, { text: `Ledger note ${i}`, memoryKind: "fact", confidence: 0.8 }, undefined);
    // A term spelled like another scope's indexed token (SQLite indexes "<org>:<environment>:<term>") stays the writer's.
    const spoofing = await server.services.memories.encode(neighbour, null, { text: `Copied ${scope.orgId}:production:ledger`, memoryKind: "fact", confidence: 0.8 }, undefined);
    const spoof = analyzeText(`${scope.orgId}:production:ledger`)[0]!;
    const { memories } = server.services.store;
    const state = await memories.collectionState(scope);
    expect(state).toMatchObject({ documents: 4 });
    expect(await memories.documentFrequencies(scope, ["ledger", "team", "unheard"])).toEqual({ version: state.version, documents: [3, 3, 0] });
    const neighbours = { orgId: other.id, environment: "production" } as const;
    expect(await memories.documentFrequencies(neighbours, ["ledger", "team", spoof])).toEqual({ version: (await memories.collectionState(neighbours)).version, documents: [4, 0, 1] });
    expect(idsOf(await lookup({ terms: ["ledger"], order: "newest", limit: 10 }))).toEqual([ids.newest, ids.middle, ids.oldest]);
    expect(await lookup({ terms: [spoof] })).toEqual([]);
    expect(idsOf(await lookup({ terms: [spoof] }, { ...neighbours, agentSlug: null }))).toEqual([spoofing.body.memory.id]);
  });
});

/** Newest-first lookups in an organization with more memories than Postgres's recent window. */
describe("newest-first lookups past the recent window", () => {
  let server: RunningServer;
  let scope: MemoryScope;
  const older: string[] = [];
  const newest: string[] = [];

  beforeAll(async () => {
    server = await startServerOn(await freshDatabase());
    const org = await server.services.organizations.create({ name: "large" });
    const { token } = await server.services.tokens.create({ orgId: org.id, name: "t", scopes: ["memory:write"], environment: "production" });
    const caller = await server.services.tokens.authenticate(token, "t");
    scope = { orgId: org.id, environment: "production", agentSlug: null };
    const encode = async (texts: string[]) => {
      const ids: string[] = [];
      for (let i = 0; i < texts.length; i += 50) {
        const written = await Promise.all(texts.slice(i, i + 50).map((text) => server.services.memories.encode(caller, null, { text, memoryKind: "fact", confidence: 0.8 }, undefined)));
        ids.push(...written.map(({ body }) => body.memory.id));
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      return ids;
    };
    older.push(...(await encode(Array.from({ length: 30 }, (_, i) => `Ledger reconciliation drift report ${i}.`))));
    await encode(Array.from({ length: NEWEST_WALK.window + 50 }, (_, i) => `The cafeteria menu for day ${i} has soup.`));
    newest.push(...(await encode(Array.from({ length: 5 }, (_, i) => `Ledger reconciliation finished, run ${i}.`))));
  }, 120_000);
  afterAll(() => server.close());

  const lookup = (limit: number) => server.services.store.memories.searchDurable(scope, { groups: [["ledger"], ["reconcili"]], match: "all", order: "newest", limit });

  it("answers from the newest memories when they hold enough matches", async () => {
    const found = await lookup(3);
    expect(found).toHaveLength(3);
    for (const { id } of found) expect(newest).toContain(id);
  });

  it("reaches past them, newest first, when they do not", async () => {
    const found = await lookup(20);
    expect(found).toHaveLength(20);
    expect(new Set(found.map(({ id }) => id)).size).toBe(20);
    expect(new Set(found.slice(0, 5).map(({ id }) => id))).toEqual(new Set(newest));
    for (const { id } of found.slice(5)) expect(older).toContain(id);
    const times = found.map(({ createdAt }) => createdAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });
});
