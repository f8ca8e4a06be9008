import { setTimeout as sleep } from "node:timers/promises";
import { databaseUnderTest, startTestServer, type TestServer } from "@engram/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../src/db/store";
import type { Caller } from "../src/domain/access/caller";
import type { MemoryScope } from "../src/domain/memory/ports";
import { candidateLookup } from "../src/domain/retrieval/candidate-lookup";
import type { CandidateQuery, MemorySearch, NeighbourAnchor, NeighbourWindow, SearchCandidate } from "../src/domain/retrieval/ports";
import type { HeldSizes } from "../src/domain/retrieval/recent-terms";
import type { Store } from "../src/domain/store";
import { countTurns } from "./event-loop-turns";

/**
 * Newest-first lookups answered from the scope's newest memories' terms held in process must find exactly the
 * newest matches the database holds, after any writes by any process: new memories, memories leaving and
 * re-entering the scope, a change log too long to apply, a held set worn thin. The held memories here are a
 * second store's (as another worker's would be), with small sizes so that every path is reached; run on both
 * backends, each reading through its own driver.
 */
let server: TestServer;
let store: Store;
let caller: Caller;
let orgId: string;
// Reads of 7 rows, so that reading a scope again takes several, none of them aligned with the held size.
const sizes: HeldSizes = { perScope: 20, termsPerScope: 10_000, total: 100_000, rowsPerRead: 7, changes: 8, changedText: 100_000, termTests: 1_000 };

// Memory i (0 the oldest) holds "common" in every third, "even" in every second, "early" among the first 15, "shared" when
// it is shared (no agent); memories are agent-a's, agent-b's and shared in turn.
const wordsOf = (i: number) => [i % 3 === 0 && "common", i % 2 === 0 && "even", i < 15 && "early", i % 3 === 2 && "shared"].filter(Boolean).join(" ");
const agentOf = (i: number) => [`agent-a`, `agent-b`, null][i % 3]!;
let written = 0;

async function write(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n++, written++) {
    const { body } = await server.services.memories.encode(caller, agentOf(written), { text: `Entry ${written} ${wordsOf(written)} filler`, memoryKind: "fact", confidence: 0.8 }, undefined);
    ids.push(body.memory.id);
    // Distinct instants, so that time order alone orders them on both backends.
    await sleep(2);
  }
  return ids;
}

/** The newest matches as the plainest read finds them: every durable memory in scope, tested and sorted here. */
async function truth(scope: MemoryScope, lookup: CandidateQuery): Promise<string[]> {
  const rows = await server.db.memory.findMany({
    where: { orgId: scope.orgId, environment: "production", state: "durable", ...(scope.agentSlug ? { OR: [{ agentSlug: scope.agentSlug }, { agentSlug: null }] } : {}) },
    select: { id: true, createdAt: true, searchText: true },
  });
  const matching = rows.filter(({ searchText }) => {
    const terms = new Set(searchText.split(" "));
    return lookup.match === "any" ? lookup.terms.some((t) => terms.has(t)) : lookup.groups.every((group) => group.some((t) => terms.has(t)));
  });
  matching.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
  return matching.slice(0, lookup.limit).map(({ id }) => id);
}

/** The store's candidate lookup over a second store, counting what reaches the database. */
function heldLookup(held: HeldSizes = sizes) {
  // A scope read again is one read from its newest memory and as many further reads as it takes.
  const calls = { searched: 0, rebuilt: 0, readsAfter: 0, caughtUp: 0, neighboursSearched: 0 };
  const memories: MemorySearch = store.memories;
  const lookup = candidateLookup(
    {
      newestDurable: (scope, limit, olderThan) => (olderThan ? calls.readsAfter++ : calls.rebuilt++, memories.newestDurable(scope, limit, olderThan)),
      collectionChanges: (scope, range) => (calls.caughtUp++, memories.collectionChanges(scope, range)),
      searchDurable: (scope, query) => (calls.searched++, memories.searchDurable(scope, query)),
      neighbours: (scope, anchors, within) => (calls.neighboursSearched++, memories.neighbours(scope, anchors, within)),
    },
    held,
  );
  return {
    calls,
    /** Each anchor's neighbours as "anchor>neighbour" pairs, sorted, each neighbour as the database holds it now. */
    async neighbours(scope: MemoryScope, anchors: NeighbourAnchor[], within: NeighbourWindow) {
      const { version } = await memories.collectionState(scope);
      const found = await lookup.neighbours(scope, version, anchors, within);
      await expectCurrent(scope, found.map(({ candidate }) => candidate));
      return found.map(({ anchorId, candidate }) => `${anchorId}>${candidate.id}`).sort();
    },
    /** The lookup's candidates, each as the database holds it now. */
    async candidates(scope: MemoryScope, query: CandidateQuery) {
      const { version } = await memories.collectionState(scope);
      const found = await lookup.matching(scope, version, query);
      await expectCurrent(scope, found);
      return found;
    },
    async ids(scope: MemoryScope, query: CandidateQuery) {
      return (await this.candidates(scope, query)).map(({ id }) => id);
    },
  };
}

/** Candidates held in process are the memories' columns as the database reads them now, reinforcement and confidence included. */
async function expectCurrent(scope: MemoryScope, candidates: readonly SearchCandidate[]) {
  const read = new Map((await store.memories.durableCandidates(scope, candidates.map(({ id }) => id))).map((candidate) => [candidate.id, candidate]));
  for (const candidate of candidates) expect(candidate).toEqual(read.get(candidate.id));
}

const organization = (): MemoryScope => ({ orgId, environment: "production", agentSlug: null });
const agentA = (): MemoryScope => ({ orgId, environment: "production", agentSlug: "agent-a" });
const any = (terms: string[], limit: number): CandidateQuery => ({ terms, match: "any", order: "newest", limit });
const all = (groups: string[][], limit: number): CandidateQuery => ({ groups, match: "all", order: "newest", limit });

/** Every lookup below, in both scopes, agrees with the plain read. */
async function expectExact(held: ReturnType<typeof heldLookup>) {
  for (const scope of [organization(), agentA()]) {
    for (const query of [
      any(["common"], 3), // within the held memories, read from the term's memories
      any(["common"], 12), // beyond them
      any(["even"], 2), // within the held memories, tested newest first
      all([["even"], ["common", "shared"]], 3), // the same, for every group
      any(["early"], 5), // only beyond them
      any(["common", "even"], 40),
      all([["common"], ["even"]], 8),
      all([["shared"], ["early", "even"]], 10),
      any(["absent"], 5),
    ]) {
      expect(await held.ids(scope, query), `${scope.agentSlug ?? "organization"} ${JSON.stringify(query)}`).toEqual(await truth(scope, query));
    }
  }
}

describe("newest-first lookups from held terms", () => {
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: "off" });
    store = await openStore(server.database);
    const tenant = await server.newTenant();
    orgId = tenant.orgId;
    caller = await server.services.tokens.authenticate(tenant.token, "t");
    await write(50);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    await server?.stop();
  });

  it("find exactly the newest matches, within the held memories and beyond them", async () => {
    const held = heldLookup();
    await expectExact(held);
    expect(held.calls.rebuilt).toBe(1);
    // A lookup whose matches the held memories hold asks nothing of the index.
    held.calls.searched = 0;
    expect(await held.ids(organization(), any(["common"], 3))).toHaveLength(3);
    expect(held.calls.searched).toBe(0);
  });

  it("find an exchange's neighbours as the database does, and search only for anchors beyond the held memories", async () => {
    const held = heldLookup();
    const ofAgentA = await server.db.memory.findMany({ where: { orgId, state: "durable", agentSlug: "agent-a" }, orderBy: { createdAt: "desc" }, select: { id: true, createdAt: true } });
    const anchors: NeighbourAnchor[] = ofAgentA.map(({ id, createdAt }) => ({ id, createdAt, agentSlug: "agent-a" }));
    // The newest, one amid the held memories, and the oldest (beyond them, when the scope is not held whole).
    const chosen = [anchors[0]!, anchors[3]!, anchors.at(-1)!];
    for (const scope of [organization(), agentA()]) {
      for (const within of [{ ms: 3_600_000, perSide: 3 }, { ms: 3_600_000, perSide: 1 }, { ms: 1, perSide: 3 }]) {
        const truth = (await store.memories.neighbours(scope, chosen, within)).map(({ anchorId, candidate }) => `${anchorId}>${candidate.id}`).sort();
        expect(await held.neighbours(scope, chosen, within), JSON.stringify(within)).toEqual(truth);
      }
    }
    expect(held.calls.neighboursSearched).toBe(6);
    // Within the held memories the database is not searched.
    expect(await held.neighbours(organization(), [anchors[1]!], { ms: 3_600_000, perSide: 3 })).toEqual(
      [anchors[0]!, anchors[2]!, anchors[3]!, anchors[4]!].map(({ id }) => `${anchors[1]!.id}>${id}`).sort(),
    );
    expect(held.calls.neighboursSearched).toBe(6);
  });

  it("hold each candidate as another process last changed it: reinforced, its confidence or subject changed", async () => {
    const held = heldLookup();
    await expectExact(held);
    const [first, second] = await held.candidates(organization(), any(["common"], 2));
    await server.services.memories.reinforce(caller, null, first!.id, {});
    await server.db.memory.update({ where: { id: second!.id }, data: { confidence: 0.35, subject: "Renamed" } });
    // Changes that rank nothing (activation, the time of the last update) move no version.
    const { version } = await store.memories.collectionState(organization());
    await server.db.memory.update({ where: { id: first!.id }, data: { activation: 0.5, updatedAt: new Date() } });
    expect((await store.memories.collectionState(organization())).version).toBe(version);

    const [reinforced, changed] = await held.candidates(organization(), any(["common"], 2));
    expect(reinforced).toMatchObject({ id: first!.id, reinforcementCount: first!.reinforcementCount + 1 });
    expect(reinforced!.recentUses).toHaveLength(first!.recentUses.length + 1);
    expect(changed).toMatchObject({ id: second!.id, confidence: 0.35, subject: "Renamed" });
    const anchor = { ...reinforced!, agentSlug: reinforced!.agentSlug ?? "agent-a" };
    await held.neighbours(organization(), [anchor], { ms: 3_600_000, perSide: 3 });
    expect(held.calls.rebuilt).toBe(1);
  });

  // Beyond the held memories SQLite's index goes on newest first in the order memories were indexed in (a restored
  // memory is indexed anew), so only Postgres's search beyond them agrees with time order after restores.
  const postgres = databaseUnderTest === "postgres";

  it.runIf(postgres)("stay exact as memories are written, leave and re-enter the scope elsewhere, caught up from the log", async () => {
    const held = heldLookup();
    await expectExact(held);
    const newestHeld = (await truth(organization(), any(["even"], 1)))[0]!;
    const [fresh] = await write(2);
    const oldest = (await server.db.memory.findFirst({ where: { orgId }, orderBy: { createdAt: "asc" } }))!.id;
    await server.services.memories.suppress(caller, null, newestHeld, {});
    await server.services.memories.tombstone(caller, null, fresh!);
    await expectExact(held);
    // Restored, a held memory takes its place again; one older than every held memory is left to the index.
    await server.services.memories.suppress(caller, null, oldest, {});
    await server.services.memories.restore(caller, null, newestHeld, {});
    await server.services.memories.restore(caller, null, oldest, {});
    await expectExact(held);
    expect(held.calls.rebuilt).toBe(1);
    expect(held.calls.caughtUp).toBeGreaterThan(0);
  });

  it("read the newest memories again when the log holds more changes than are applied, or half the held ones left", async () => {
    const held = heldLookup();
    await expectExact(held);
    await write(sizes.changes + 1);
    await expectExact(held);
    expect(held.calls.rebuilt).toBe(2);
    // Half the held memories leave, one change at a time (each applied): the rest is read again when next used.
    const newest = await server.db.memory.findMany({ where: { orgId, state: "durable" }, orderBy: { createdAt: "desc" }, take: sizes.perScope / 2 + 1 });
    for (const { id } of newest) {
      await server.services.memories.suppress(caller, null, id, {});
      await held.ids(organization(), any(["common"], 1));
    }
    expect(held.calls.rebuilt).toBe(2);
    await expectExact(held);
    expect(held.calls.rebuilt).toBe(3);
  });

  it("catch a scope up once for concurrent lookups", async () => {
    const held = heldLookup();
    await expectExact(held);
    await write(3);
    const caughtUp = held.calls.caughtUp;
    const answers = await Promise.all(Array.from({ length: 5 }, () => held.ids(organization(), any(["common"], 12))));
    expect(held.calls.caughtUp).toBe(caughtUp + 1);
    for (const answer of answers) expect(answer).toEqual(await truth(organization(), any(["common"], 12)));
  });

  it("hand a lookup over to the database where its budget of term tests runs out", async () => {
    // Three memories' worth of tests for a lookup of one term, one memory's for most below.
    const held = heldLookup({ ...sizes, termTests: 3 });
    await expectExact(held);
    held.calls.searched = 0;
    expect(await held.ids(organization(), any(["common"], 3))).toEqual(await truth(organization(), any(["common"], 3)));
    expect(held.calls.searched).toBe(1);
  });

  it("move a memory whose time was rewritten to its new place", async () => {
    const other = await server.newTenant();
    const otherCaller = await server.services.tokens.authenticate(other.token, "t");
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push((await server.services.memories.encode(otherCaller, null, { text: `Moved ${i} common`, memoryKind: "fact", confidence: 0.8 }, undefined)).body.memory.id);
      await sleep(2);
    }
    const held = heldLookup();
    const scope: MemoryScope = { orgId: other.orgId, environment: "production", agentSlug: null };
    expect(await held.ids(scope, any(["common"], 10))).toEqual([...ids].reverse());
    await server.db.memory.update({ where: { id: ids[3]! }, data: { createdAt: new Date(Date.now() - 3_600_000) } });
    expect(await held.ids(scope, any(["common"], 10))).toEqual([ids[2], ids[1], ids[0], ids[3]]);
    expect(held.calls.rebuilt).toBe(1);
  });

  it("hold a whole small scope, and search nothing beyond it", async () => {
    const small = await server.newTenant();
    const smallCaller = await server.services.tokens.authenticate(small.token, "t");
    for (let i = 0; i < 5; i++) await server.services.memories.encode(smallCaller, null, { text: `Small ${i} common`, memoryKind: "fact", confidence: 0.8 }, undefined);
    const held = heldLookup();
    const scope: MemoryScope = { orgId: small.orgId, environment: "production", agentSlug: null };
    expect(await held.ids(scope, any(["common"], 10))).toHaveLength(5);
    expect(held.calls.searched).toBe(0);
  });

  it("know a scope of exactly the held size whole, and one memory more not", async () => {
    const exact = await server.newTenant();
    const exactCaller = await server.services.tokens.authenticate(exact.token, "t");
    for (let i = 0; i < sizes.perScope; i++) await server.services.memories.encode(exactCaller, null, { text: `Exact ${i} ${i % 2 === 0 ? "common" : "rare"}`, memoryKind: "fact", confidence: 0.8 }, undefined);
    const scope: MemoryScope = { orgId: exact.orgId, environment: "production", agentSlug: null };
    const whole = heldLookup();
    expect(await whole.ids(scope, any(["common"], sizes.perScope))).toHaveLength(sizes.perScope / 2);
    expect(whole.calls.searched).toBe(0);

    // The oldest memory is no longer held: a lookup that wants more than the held matches goes on in the database.
    await server.services.memories.encode(exactCaller, null, { text: `Exact ${sizes.perScope} rare`, memoryKind: "fact", confidence: 0.8 }, undefined);
    const beyond = heldLookup();
    expect(await beyond.ids(scope, any(["common"], sizes.perScope))).toHaveLength(sizes.perScope / 2);
    expect(beyond.calls.searched).toBe(1);
  });

  it("read a scope again in reads of a bounded size, giving the event loop a turn between them", async () => {
    const turns = countTurns();
    const held = heldLookup();
    const found = await held.ids(organization(), any(["common"], 3));
    const taken = turns.stop();
    expect(found).toEqual(await truth(organization(), any(["common"], 3)));
    // 21 rows at most, 7 a read: the first and two after it.
    expect(held.calls).toMatchObject({ rebuilt: 1, readsAfter: 2 });
    expect(taken).toBeGreaterThanOrEqual(2);
  });

  it("hold fewer memories of a scope whose memories hold many terms, and find the rest in the database", async () => {
    // Each memory holds 4-7 distinct terms: about seven are held, two of them "common", where 20 hold six or seven.
    const few = heldLookup({ ...sizes, termsPerScope: 40 });
    const whole = heldLookup();
    for (const lookup of [few, whole]) expect(await lookup.ids(organization(), any(["common"], 5))).toEqual(await truth(organization(), any(["common"], 5)));
    expect(whole.calls.searched).toBe(0);
    expect(few.calls.searched).toBe(1);
    await expectExact(few);
    const rebuilt = few.calls.rebuilt;
    // New memories push the oldest held ones out within the bound, and one long memory pushes out several; the
    // scope is not read again for holding fewer memories than `perScope`.
    await write(2);
    await server.services.memories.encode(caller, null, { text: `Long common even ${Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ")}`, memoryKind: "fact", confidence: 0.8 }, undefined);
    await sleep(2);
    await expectExact(few);
    expect(few.calls.rebuilt).toBe(rebuilt);
  });
});
