import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TRetrieveResponse } from "@engram/contract";
import { apiClient, startServerOn, startTestServer, type TestServer } from "@engram/test-support";
import type { RunningServer } from "../src/server";

/**
 * Retrieval's collection statistics are exact after every committed write, whichever server process made
 * it: the totals are a row the database keeps in each write's transaction, and cached document frequencies
 * are brought up to the scope's version from the change log the same transaction writes.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

type Api = ReturnType<typeof apiClient>;

async function encode(api: Api, text: string): Promise<string> {
  const res = await api.memory.encode({ body: { text } });
  if (res.status !== 201) throw new Error(`encode answered ${res.status}`);
  return res.body.memory.id;
}

async function retrieve(api: Api, query: string): Promise<TRetrieveResponse["memories"]> {
  const res = await api.memory.retrieve({ body: { query, limit: 10 } });
  if (res.status !== 200) throw new Error(`retrieve answered ${res.status}`);
  return res.body.memories;
}

const ranking = (memories: TRetrieveResponse["memories"]) => memories.map(({ id, score }) => ({ id, score }));

/** What the triggers should hold, counted from the memories themselves. */
async function countedFromRows(orgId: string) {
  const rows = await server.db.memory.findMany({ where: { orgId, environment: "production", state: "durable" }, select: { searchText: true } });
  const terms = rows.reduce((sum, row) => sum + (row.searchText === "" ? 0 : row.searchText.split(" ").length), 0);
  return { documents: rows.length, averageLength: rows.length === 0 ? 0 : terms / rows.length };
}

/**
 * On Postgres, the timeline newest-first lookups walk: exactly the durable memories, with their current agent,
 * time and terms (empty elsewhere).
 */
async function timelineAndDurable(orgId: string) {
  if (server.database.provider !== "postgres") return { timeline: [], durable: [] };
  const read = (table: string, durableOnly: string) =>
    server.db.$queryRawUnsafe<unknown[]>(
      `SELECT "id", "agentSlug", "createdAt", "searchVector"::text AS "terms" FROM "${table}" WHERE "orgId" = $1 AND "environment" = 'production' ${durableOnly} ORDER BY "id"`,
      orgId,
    );
  return { timeline: await read("MemoryTimeline", ""), durable: await read("Memory", `AND "state" = 'durable'`) };
}

const stateOf = (orgId: string) => server.services.store.memories.collectionState({ orgId, environment: "production" });

/** Each term's documents as the change log adds them up from the scope's first version, beside a fresh count. */
async function loggedAndCounted(orgId: string, version: bigint) {
  const scope = { orgId, environment: "production" } as const;
  const changes = await server.services.store.memories.collectionChanges(scope, { after: 0n, upTo: version, limit: 10_000, maxText: 10_000_000 });
  if (changes === null) throw new Error("the log lost versions");
  const logged = new Map<string, number>();
  // A memory holds a term once however often it says it: document frequency counts memories.
  for (const change of changes) for (const term of new Set(change.terms)) logged.set(term, (logged.get(term) ?? 0) + change.delta);
  const terms = [...logged.keys()];
  const counted = await server.services.store.memories.documentFrequencies(scope, terms);
  return { logged: terms.map((term) => logged.get(term)), counted: counted.documents };
}

describe("collection state", () => {
  it("stays equal to a count of the durable memories through every kind of change, and moves its version only with them or their ranking", async () => {
    const orgId = await server.newOrg({ plan: "seed" });
    const api = apiClient(server.url, await server.newToken(orgId));
    expect(await stateOf(orgId)).toEqual({ documents: 0, averageLength: 0, version: 0n, vectorsVersion: 0n });

    const check = async () => {
      const state = await stateOf(orgId);
      const counted = await countedFromRows(orgId);
      expect(state.documents).toBe(counted.documents);
      expect(state.averageLength).toBeCloseTo(counted.averageLength, 9);
      const { logged, counted: fresh } = await loggedAndCounted(orgId, state.version);
      expect(logged).toEqual(fresh);
      const { timeline, durable } = await timelineAndDurable(orgId);
      expect(timeline).toEqual(durable);
      return state.version;
    };
    const ids = await Promise.all(["The ledger service settles payments nightly.", "Alerts route to the payments on-call.", "Short."].map((text) => encode(api, text)));
    let version = await check();
    expect(version).toBeGreaterThan(0n);

    const steps: Array<[string, () => Promise<unknown>, "moves" | "stays"]> = [
      // Reinforcing moves the version (a change of no terms) so that candidates held in process are read again.
      ["reinforce", () => api.memory.reinforce({ params: { id: ids[0]! }, body: {} }), "moves"],
      ["record an activation", () => server.db.memory.update({ where: { id: ids[0]! }, data: { activation: 0.4, activationAt: new Date() } }), "stays"],
      ["change the confidence", () => server.db.memory.update({ where: { id: ids[1]! }, data: { confidence: 0.2 } }), "moves"],
      ["rewrite the time", () => server.db.memory.update({ where: { id: ids[1]! }, data: { createdAt: new Date(Date.now() - 60_000) } }), "moves"],
      ["suppress", () => api.memory.suppress({ params: { id: ids[0]! }, body: {} }), "moves"],
      ["restore", () => api.memory.restore({ params: { id: ids[0]! }, body: {} }), "moves"],
      ["tombstone", () => api.memory.delete({ params: { id: ids[1]! } }), "moves"],
      ["delete a row", () => server.db.memory.delete({ where: { id: ids[2]! } }), "moves"],
      ["rewrite the terms", () => server.db.memory.update({ where: { id: ids[0]! }, data: { searchText: "ledger settles" } }), "moves"],
    ];
    for (const [name, step, expected] of steps) {
      await step();
      const next = await check();
      expect(next === version ? "stays" : "moves", name).toBe(expected);
      if (name === "reinforce") {
        // One change, naming the memory as it now is, with no terms.
        const changes = await server.services.store.memories.collectionChanges({ orgId, environment: "production" }, { after: version, upTo: next, limit: 10, maxText: 1_000 });
        expect(changes).toEqual([{ version: next, delta: 0, memoryId: ids[0], terms: [], candidate: expect.objectContaining({ id: ids[0], reinforcementCount: 1 }) }]);
      }
      version = next;
    }

    // Candidates are outside the collection until promoted.
    await server.services.organizations.setWriteMode(orgId, "candidate");
    await server.services.tokens.forgetVerified();
    const candidate = await encode(api, "A candidate about the ledger cutover.");
    expect(await check()).toBe(version);
    await server.services.candidates.promote(candidate, { actor: "user:test@example.com" });
    expect(await check()).toBeGreaterThan(version);
  });

  it("ranks a memory encoded a moment ago with statistics that include it, in a vocabulary seen before as empty", async () => {
    const { token } = await server.newTenant();
    const api = apiClient(server.url, token);
    await encode(api, "The build cache lives on the runners.");
    expect(await retrieve(api, "quokka sightings")).toEqual([]);

    await encode(api, "Quokka sightings are logged by the wildlife team.");
    const warm = await retrieve(api, "quokka sightings");
    const cold = await startServerOn(server.database);
    try {
      expect(ranking(warm)).toHaveLength(1);
      expect(ranking(warm)).toEqual(ranking(await retrieve(apiClient(cold.url, token), "quokka sightings")));
    } finally {
      await cold.close();
    }
  });
});

describe("document frequencies kept from the change log", () => {
  it("rank as a server counting afresh does, through every kind of change between two retrievals", async () => {
    const { orgId, token } = await server.newTenant();
    const api = apiClient(server.url, token);
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => encode(api, `Ferry ${i} crosses the harbour${i % 3 === 0 ? " at dawn" : ""}.`)));
    await retrieve(api, "ferry harbour dawn");

    const counted = (await stateOf(orgId)).version;
    await Promise.all(Array.from({ length: 5 }, (_, i) => encode(api, `The dawn ferry ${i} is late.`)));
    // The log is read only within its budgets: past them, retrieval counts afresh instead.
    const written = (await stateOf(orgId)).version;
    const changes = (maxText: number, limit = 512) =>
      server.services.store.memories.collectionChanges({ orgId, environment: "production" }, { after: counted, upTo: written, limit, maxText });
    expect(await changes(10_000)).toHaveLength(5);
    expect(await changes(40)).toBeNull();
    expect(await changes(10_000, 4)).toBeNull();
    await api.memory.suppress({ params: { id: ids[0]! }, body: {} });
    await api.memory.delete({ params: { id: ids[1]! } });
    await server.db.memory.update({ where: { id: ids[2]! }, data: { searchText: "harbour closed" } });
    await server.db.memory.delete({ where: { id: ids[3]! } });
    const warm = await retrieve(api, "ferry harbour dawn");
    const cold = await startServerOn(server.database);
    try {
      expect(ranking(warm)).toEqual(ranking(await retrieve(apiClient(cold.url, token), "ferry harbour dawn")));
    } finally {
      await cold.close();
    }
    expect(await stateOf(orgId)).toMatchObject({ documents: 14 });
  });

  it("count each analysed term as written, in every script, as the log does", async () => {
    // The index must hold the analyser's terms exactly: a tokenizer of its own would fold the final sigma into
    // σ, or split a word at letters its older Unicode tables call separators, and count what the log does not.
    const { orgId, token } = await server.newTenant();
    const api = apiClient(server.url, token);
    const texts = ["λογοσ alpha", "λογος beta", "qlmᦰxyz release train", "qlm xyz notes", "Ꭰꭰ Ꮳꮳ cherokee", "ıstanbul istanbul", "straße strasse", "Ǆemal ǆemal"];
    for (const text of texts) await encode(api, text);
    const { logged, counted } = await loggedAndCounted(orgId, (await stateOf(orgId)).version);
    expect(counted).toEqual(logged);
    const warm = await retrieve(api, "λογοσ qlmᦰxyz");
    await encode(api, "λογος qlm xyz again");
    const cold = await startServerOn(server.database);
    try {
      expect(ranking(await retrieve(api, "λογοσ qlmᦰxyz"))).toEqual(ranking(await retrieve(apiClient(cold.url, token), "λογοσ qlmᦰxyz")));
    } finally {
      await cold.close();
    }
    expect(warm.length).toBeGreaterThan(0);
  });

  it("keeps a bounded log, and counts again once it has pruned the versions a count is behind", async () => {
    const { orgId, token } = await server.newTenant();
    const api = apiClient(server.url, token);
    const [flipped] = await Promise.all(["Kiln firing starts at six.", "The kiln is cooled overnight.", "Glaze orders go to the studio."].map((text) => encode(api, text)));
    await retrieve(api, "kiln glaze");
    const before = (await stateOf(orgId)).version;

    // One statement per change: a version each, on both backends.
    for (let i = 0; i < 1_600; i++) await server.db.memory.update({ where: { id: flipped! }, data: { state: i % 2 === 0 ? "suppressed" : "durable" } });
    const after = (await stateOf(orgId)).version;
    expect(after - before).toBe(1_600n);
    const logRows = await server.db.memoryCollectionChange.count({ where: { orgId, environment: "production" } });
    expect(logRows).toBeGreaterThanOrEqual(1_024);
    expect(logRows).toBeLessThanOrEqual(1_536);
    expect(await server.services.store.memories.collectionChanges({ orgId, environment: "production" }, { after: before, upTo: after, limit: 10_000, maxText: 10_000_000 })).toBeNull();

    const warm = await retrieve(api, "kiln glaze");
    const cold = await startServerOn(server.database);
    try {
      expect(ranking(warm)).toHaveLength(3);
      expect(ranking(warm)).toEqual(ranking(await retrieve(apiClient(cold.url, token), "kiln glaze")));
    } finally {
      await cold.close();
    }
  });
});

describe("two servers on one database", () => {
  let other: RunningServer;
  beforeAll(async () => {
    other = await startServerOn(server.database);
  });
  afterAll(async () => {
    await other?.close();
  });

  it("ranks with the other server's writes at once, and the same on both", async () => {
    const { token } = await server.newTenant();
    const here = apiClient(server.url, token);
    const there = apiClient(other.url, token);
    await encode(here, "The ferry timetable changes in October.");
    // Both servers count the query's terms now, before the writes below.
    expect(ranking(await retrieve(there, "ferry timetable"))).toEqual(ranking(await retrieve(here, "ferry timetable")));

    const added = await Promise.all(["The ferry leaves from pier four.", "Ferry tickets are sold at the kiosk.", "Timetable questions go to the harbour office."].map((text) => encode(here, text)));
    const seenThere = await retrieve(there, "ferry timetable");
    expect(seenThere.map((m) => m.id)).toEqual(expect.arrayContaining(added));
    expect(ranking(seenThere)).toEqual(ranking(await retrieve(here, "ferry timetable")));

    // Reinforced there, a memory ranks higher here at once, as a server reading everything afresh ranks it.
    const reinforcedBefore = seenThere.find((m) => m.id === added[2])!.score;
    expect((await there.memory.reinforce({ params: { id: added[2]! }, body: {} })).status).toBe(200);
    const afterReinforce = await retrieve(here, "ferry timetable");
    expect(afterReinforce.find((m) => m.id === added[2])!.score).toBeGreaterThan(reinforcedBefore);
    const cold = await startServerOn(server.database);
    try {
      expect(ranking(afterReinforce)).toEqual(ranking(await retrieve(apiClient(cold.url, token), "ferry timetable")));
    } finally {
      await cold.close();
    }

    const suppressed = await there.memory.suppress({ params: { id: added[0]! }, body: {} });
    expect(suppressed.status).toBe(200);
    const afterSuppress = await retrieve(here, "ferry timetable");
    expect(afterSuppress.map((m) => m.id)).not.toContain(added[0]);
    expect(ranking(afterSuppress)).toEqual(ranking(await retrieve(there, "ferry timetable")));
  });
});
