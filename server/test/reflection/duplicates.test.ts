import { randomUUID } from "node:crypto";
import type { TEnvironment, TReflectionSettings } from "@engram/contract";
import { analyzeText } from "@engram/retrieval";
import { apiClient, startTestServer, type TestServer } from "@engram/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlannedMemory } from "../../src/domain/memory/ports";
import { reflectionContext } from "../../src/domain/reflection/context";
import { dialectFor } from "../../src/db/dialect";
import type { PrismaTx } from "../../src/db/prisma";
import type { Sql } from "../../src/db/sql";
import { prismaReads } from "../../src/db/sql-reads";
import { reflectionMemoryRepository } from "../../src/db/tables/reflection/reflection-memories";
import { CHANGES_PER_TRANSACTION, REFLECTION_BATCH, REFLECTION_PAGE_BYTES } from "../../src/domain/reflection/process";
import { duplicatesProcess } from "../../src/domain/reflection/processes/duplicates";
import { type Entry, mergesOf } from "../../src/domain/reflection/processes/merge-plan";
import { bandShape, candidateProbability, jaccard, jaccardWithout, similarGroups, type TermSet, termSet, UnionFind, without } from "../../src/domain/reflection/processes/near-duplicates";
import { comparisonUnits, pacer, textUnits } from "../../src/domain/reflection/processes/pacing";
import { DEFAULT_REFLECTION_SETTINGS } from "../../src/domain/reflection/settings";

/** Words the analyser keeps as distinct terms (no stop words, no two with one stem). */
const WORDS = (
  "alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa quebec romeo " +
  "sierra tango uniform victor whiskey xray yankee zulu amber cobalt crimson indigo magenta ochre"
).split(" ");
const sentence = (from: number, count: number) => WORDS.slice(from, from + count).join(" ");

/** The similarity the process should see: Jaccard over the analysed terms of subject and text, less the subject's. */
function similarity(a: { subject?: string; text: string }, b: { subject?: string; text: string }): number {
  const subject = new Set(analyzeText(a.subject ?? b.subject ?? ""));
  const terms = (m: { subject?: string; text: string }) => new Set(analyzeText(`${m.subject ?? ""} ${m.text}`).filter((term) => !subject.has(term)));
  const [x, y] = [terms(a), terms(b)];
  const shared = [...x].filter((term) => y.has(term)).length;
  return shared / (x.size + y.size - shared);
}

/** A small deterministic generator, so the crafted collections are the same every run. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("near-duplicate detection", () => {
  it("chooses bands that find pairs at the threshold almost surely and dissimilar pairs rarely", () => {
    for (const threshold of [0.5, 0.7, 0.85, 0.95, 1]) {
      const shape = bandShape(threshold);
      expect(shape.bands * shape.rows).toBeLessThanOrEqual(128);
      expect(candidateProbability(threshold, shape), `threshold ${threshold}`).toBeGreaterThanOrEqual(0.999);
    }
    expect(candidateProbability(0.4, bandShape(0.85))).toBeLessThan(0.05);
  });

  it("measures Jaccard similarity over distinct terms", () => {
    const [a, b, empty] = [termSet("deploy monday deploy"), termSet("deploy friday"), termSet("")];
    expect(jaccard(a, a)).toBe(1);
    expect(jaccard(a, b)).toBeCloseTo(1 / 3);
    expect(jaccard(empty, empty)).toBe(0);
  });

  it("finds the same groups as comparing every pair", async () => {
    const next = random(7);
    const texts: string[] = [];
    // Over 2,048 sets, so that their signatures take more than one block.
    for (let i = 0; i < 1_600; i++) {
      const words = Array.from({ length: 8 + Math.floor(next() * 20) }, () => `w${Math.floor(next() * 500)}`);
      texts.push(words.join(" "));
      // Near copies: a word more, or one changed, or the same.
      if (i % 4 === 0) texts.push(`${words.join(" ")} extra${i}`);
      if (i % 9 === 0) texts.push([...words.slice(1), `changed${i}`].join(" "));
      if (i % 13 === 0) texts.push(words.join(" "));
    }
    const sets = texts.map((text) => termSet(text));
    for (const threshold of [0.85, 0.6]) {
      const expected = new UnionFind(sets.length);
      for (let a = 0; a < sets.length; a++) for (let b = 0; b < a; b++) if (jaccard(sets[a]!, sets[b]!) >= threshold) expected.union(a, b);
      const groups = await similarGroups(sets, { threshold, similarity: (a, b) => jaccard(sets[a]!, sets[b]!), pace: { due: pacer(100), pause: async () => {} } });
      const found = new UnionFind(sets.length);
      for (const group of groups) for (const i of group) found.union(group[0]!, i);
      // Each set named by the first set of its group.
      const partition = (u: UnionFind) => sets.map((_, i) => u.find(i)).map((root, _, roots) => roots.indexOf(root));
      expect(sets.length).toBeGreaterThan(2_048);
      expect(groups.length).toBeGreaterThan(200);
      expect(partition(found), `threshold ${threshold}`).toEqual(partition(expected));
    }
  });

  it("keeps the work linear in a crowd of sets that are alike but below the threshold", async () => {
    const template = sentence(0, 14);
    const sets: TermSet[] = Array.from({ length: 3000 }, (_, i) => termSet(`${template} a${i} b${i} c${i}`));
    let pauses = 0;
    let compared = 0;
    const similarity = (a: number, b: number) => (compared++, jaccard(sets[a]!, sets[b]!));
    const groups = await similarGroups(sets, { threshold: 0.85, similarity, pace: { due: pacer(500), pause: async () => void pauses++ } });
    expect(groups).toEqual([]);
    // Every pair would be 4.5 million comparisons per band; a bounded number per set is linear.
    expect(compared).toBeLessThan(sets.length * 300);
    expect(pauses).toBeGreaterThan(3000 / 500);
  });

  it("pauses by the terms it signs, not only by the sets: large memories pause as often as their work asks", async () => {
    // 200 sets of 2,000 distinct terms each: under one batch of sets, but the work of twelve.
    const sets: TermSet[] = Array.from({ length: 200 }, (_, i) => termSet(Array.from({ length: 2_000 }, (_, j) => `t${i}x${j}`).join(" ")));
    let pauses = 0;
    await similarGroups(sets, { threshold: 0.85, similarity: (a, b) => jaccard(sets[a]!, sets[b]!), pace: { due: pacer(500), pause: async () => void pauses++ } });
    expect(pauses).toBeGreaterThanOrEqual(12);
  });

  /** Memory i holds terms i to i + width - 1; with `subjectEvery`, every so many also has a subject of two terms. */
  const chain = (length: number, width: number, subjectEvery = 0): Entry[] =>
    Array.from({ length }, (_, i) => {
      const subjected = subjectEvery > 0 && i % subjectEvery === 0;
      return {
        id: `mem_${String(i).padStart(5, "0")}`,
        agentSlug: null,
        subject: subjected ? "payments" : null,
        subjectTerms: subjected ? Uint32Array.of(1_000_000, 1_000_001) : new Uint32Array(0),
        terms: Uint32Array.from({ length: width }, (_, k) => i + k),
        reinforcementCount: 0,
        confidence: 0.5,
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
      };
    });

  /** The units of work planning must count: each survivor compared with everything left after it. */
  function unitsOfPlanning(entries: Entry[], merges: Awaited<ReturnType<typeof mergesOf>>): number {
    let left = entries;
    let units = 0;
    for (const { survivor, duplicates } of merges) {
      const merged = new Set([survivor, ...duplicates.map(({ entry }) => entry)]);
      for (const entry of left) {
        if (entry !== survivor) units += comparisonUnits(survivor.terms.length + entry.terms.length + survivor.subjectTerms.length + entry.subjectTerms.length);
      }
      left = left.filter((entry) => !merged.has(entry));
    }
    return units;
  }

  it.each([
    ["a chain of drift", chain(2_000, 40), 0.85],
    ["a chain of drift, every other memory with a subject", chain(2_000, 40, 2), 0.85],
    ["a chain of short memories at the lowest similarity allowed", chain(4_000, 3), 0.5],
  ] as const)("plans the merges of %s in paced steps, and the same merges as at once", async (_shape, entries, threshold) => {
    // Each survivor takes its few close neighbours and leaves the rest of the chain to the next, so the
    // comparisons grow with the square of the chain.
    let pauses = 0;
    let counted = 0;
    const due = pacer(REFLECTION_BATCH);
    const paced = await mergesOf(entries, threshold, { due: (units = 1) => ((counted += units), due(units)), pause: async () => void pauses++ });
    const atOnce = await mergesOf(entries, threshold, { due: () => false, pause: async () => {} });
    expect(paced).toEqual(atOnce);
    expect(paced.length).toBeGreaterThan(entries.length / 5);

    const units = unitsOfPlanning(entries, paced);
    expect(counted).toBeCloseTo(units, 6);
    expect(units).toBeGreaterThan(10 * REFLECTION_BATCH);
    // The counter starts afresh after each pause, so a batch's last step may run a little past it.
    expect(pauses).toBeLessThanOrEqual(Math.floor(units / REFLECTION_BATCH));
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(units / (REFLECTION_BATCH * 1.01)));
  });

  it("measures similarity less a subject's terms as if they were removed first", () => {
    const next = random(7);
    const set = (size: number) => Uint32Array.from(new Set(Array.from({ length: size }, () => Math.floor(next() * 60)))).sort();
    for (let i = 0; i < 500; i++) {
      const [a, b, removed] = [set(next() * 30), set(next() * 30), set(next() * 6)];
      expect(jaccardWithout(a, b, removed)).toBe(jaccard(a, without(b, removed)));
    }
  });
});

describe("the duplicates process", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  type Crafted = { text: string; subject?: string; confidence?: number };

  async function tenant(environment: TEnvironment = "production", orgId?: string) {
    const org = orgId ?? (await server.newOrg());
    const api = apiClient(server.url, await server.newToken(org, { environment }));
    const encode = async (memory: Crafted, agentSlug?: string) => {
      const res = agentSlug ? await api.memory.encodeForAgent({ params: { agentSlug }, body: memory }) : await api.memory.encode({ body: memory });
      if (res.status !== 201) throw new Error(`encode answered ${res.status}`);
      expect(res.body.memory.state).toBe("durable");
      return res.body.memory.id;
    };
    const reinforce = async (id: string, times = 1) => {
      for (let i = 0; i < times; i++) expect((await api.memory.reinforce({ params: { id }, body: {} })).status).toBe(200);
    };
    const provenance = async (id: string) => {
      const res = await api.memory.provenance({ params: { id } });
      if (res.status !== 200) throw new Error(`provenance answered ${res.status}`);
      return res.body;
    };
    const run = async (settings: TReflectionSettings = DEFAULT_REFLECTION_SETTINGS, runId = `rfr_${randomUUID()}`) => ({
      runId,
      ...(await duplicatesProcess.run(reflectionContext(server.services.store, { scope: { orgId: org, environment }, runId, settings, clock: () => new Date() }))),
    });
    const states = async (...ids: string[]) => {
      const rows = await server.db.memory.findMany({ where: { id: { in: ids } }, select: { id: true, state: true, duplicateOfId: true } });
      return ids.map((id) => rows.find((row) => row.id === id)!).map(({ state, duplicateOfId }) => ({ state, duplicateOfId }));
    };
    const counts = async () => ({
      memories: await server.db.memory.count({ where: { orgId: org } }),
      history: await server.db.memoryHistory.count({ where: { memory: { orgId: org } } }),
    });
    return { orgId: org, api, encode, reinforce, provenance, run, states, counts };
  }

  const durable = { state: "durable", duplicateOfId: null };
  const duplicateOf = (id: string) => ({ state: "suppressed", duplicateOfId: id });

  it("merges exact and near duplicates into the oldest when support is equal, with provenance that explains it", async () => {
    const { encode, run, states, provenance, counts } = await tenant();
    const base = { subject: "payments-api", text: `Payments deploy ${sentence(0, 16)}.` };
    const near = { subject: "payments-api", text: `${base.text} Also ${WORDS[20]}.` };
    expect(similarity(base, near)).toBeGreaterThanOrEqual(0.85);
    const first = await encode(base);
    const exact = await encode(base);
    const close = await encode(near);
    const other = await encode({ subject: "payments-api", text: sentence(17, 12) });
    const before = await counts();

    const result = await run();
    expect(result).toEqual({ runId: result.runId, examined: 4, actions: 3 });
    expect(await states(first, exact, close, other)).toEqual([durable, duplicateOf(first), duplicateOf(first), durable]);

    const suppressed = await provenance(close);
    expect(suppressed.memory.state).toBe("suppressed");
    expect(suppressed.history.at(-1)).toMatchObject({
      action: "suppressed",
      fromState: "durable",
      toState: "suppressed",
      actor: "reflection",
      requestId: result.runId,
      reason: `duplicate of ${first} (similarity ${(Math.floor(similarity(base, near) * 100) / 100).toFixed(2)})`,
    });
    expect((await provenance(exact)).history.at(-1)!.reason).toBe(`duplicate of ${first} (similarity 1.00)`);
    const survivor = await provenance(first);
    expect(survivor.memory).toMatchObject({ state: "durable", reinforcementCount: 1 });
    expect(survivor.history.at(-1)).toMatchObject({ action: "reinforced", actor: "reflection", requestId: result.runId });
    expect(survivor.history.at(-1)!.reason).toMatch(new RegExp(`^absorbed 2 duplicates: (${exact}, ${close}|${close}, ${exact})$`));

    const events = await server.db.reflectionEvent.findMany({ where: { runId: result.runId }, orderBy: { memoryId: "asc" } });
    expect(events.map((e) => [e.memoryId, e.action, e.relatedId]).sort()).toEqual(
      [[first, "reinforced_survivor", null], [exact, "suppressed_duplicate", first], [close, "suppressed_duplicate", first]].sort(),
    );
    const merged = JSON.parse(events.find((e) => e.action === "reinforced_survivor")!.details!);
    expect({ ...merged, duplicateIds: [...merged.duplicateIds].sort() }).toEqual({ duplicateIds: [exact, close].sort(), duplicateCount: 2 });

    // Nothing deleted: the same memories, history only added to.
    const after = await counts();
    expect(after.memories).toBe(before.memories);
    expect(after.history).toBe(before.history + 3);

    // A second run changes nothing.
    expect(await run()).toMatchObject({ examined: 2, actions: 0 });
    expect(await counts()).toEqual(after);
    expect((await provenance(first)).memory.reinforcementCount).toBe(1);
  });

  it("names at most 100 of a survivor's duplicates in its event, and counts them all", async () => {
    const { encode, run } = await tenant();
    const text = sentence(0, 12);
    const ids: string[] = [];
    for (let i = 0; i < 105; i++) ids.push(await encode({ text }));
    const result = await run();
    expect(result.actions).toBe(105);
    const event = await server.db.reflectionEvent.findFirstOrThrow({ where: { runId: result.runId, action: "reinforced_survivor" } });
    const details = JSON.parse(event.details!);
    // Each duplicate's own event names the survivor; the survivor's names the first hundred, so one event stays small.
    expect(details.duplicateCount).toBe(104);
    expect(details.duplicateIds).toHaveLength(100);
    expect(new Set(details.duplicateIds).size).toBe(100);
    expect(ids.slice(1)).toEqual(expect.arrayContaining(details.duplicateIds));
    expect(await server.db.reflectionEvent.count({ where: { runId: result.runId, action: "suppressed_duplicate", relatedId: event.memoryId } })).toBe(104);
  });

  it("commits a merge a few changes a transaction, the survivor's reinforcement with the last", async () => {
    const { orgId, encode, states } = await tenant();
    const text = sentence(3, 12);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await encode({ text }));
    const context = reflectionContext(server.services.store, { scope: { orgId, environment: "production" }, runId: `rfr_${randomUUID()}`, settings: DEFAULT_REFLECTION_SETTINGS, clock: () => new Date() });
    // The changes each transaction made: on SQLite a transaction holds the event loop until it commits.
    const perTransaction: number[] = [];
    const result = await duplicatesProcess.run({
      ...context,
      transaction: (work) =>
        context.transaction(async (memories) => {
          let changes = 0;
          const answer = await work({
            ...memories,
            changeState: (...args) => (changes++, memories.changeState(...args)),
            reinforce: (...args) => (changes++, memories.reinforce(...args)),
          });
          perTransaction.push(changes);
          return answer;
        }),
    });
    expect(result.actions).toBe(12);
    // Twelve changes (eleven duplicates and the survivor's reinforcement), CHANGES_PER_TRANSACTION at a time.
    expect(perTransaction).toEqual(Array.from({ length: Math.ceil(12 / CHANGES_PER_TRANSACTION) }, (_, i) => Math.min(CHANGES_PER_TRANSACTION, 12 - i * CHANGES_PER_TRANSACTION)));
    expect(await states(...ids)).toEqual([durable, ...ids.slice(1).map(() => duplicateOf(ids[0]!))]);
  });

  it("reads long memories in pages bounded by their bytes, and analyses each page in paced steps", async () => {
    const { orgId, api } = await tenant();
    // Words of letters only, none repeated across memories: nothing here is a duplicate.
    const word = (n: number) => Array.from({ length: 4 }, (_, k) => String.fromCharCode(97 + (Math.floor(n / 26 ** k) % 26))).join("");
    const longText = (i: number) => Array.from({ length: 700 }, (_, k) => `q${word(i * 700 + k)}`).join(" ").slice(0, 4_000);
    // A full page's count of long memories, and one short one.
    const texts = [...Array.from({ length: REFLECTION_BATCH }, (_, i) => longText(i)), "one short memory to read on a later page"];
    for (let start = 0; start < texts.length; start += 32) {
      const answers = await Promise.all(texts.slice(start, start + 32).map((text) => api.memory.encode({ body: { text } })));
      expect(answers.map((res) => res.status)).toEqual(answers.map(() => 201));
    }
    const context = reflectionContext(server.services.store, { scope: { orgId, environment: "production" }, runId: `rfr_${randomUUID()}`, settings: DEFAULT_REFLECTION_SETTINGS, clock: () => new Date() });
    let pauses = 0;
    const reads: Array<{ pauses: number; ids: string[] }> = [];
    const result = await duplicatesProcess.run({
      ...context,
      pause: async () => void pauses++,
      memories: {
        ...context.memories,
        page: async (...args) => {
          const page = await context.memories.page(...args);
          reads.push({ pauses, ids: page.map(({ id }) => id) });
          return page;
        },
      },
    });
    expect(result).toEqual({ examined: REFLECTION_BATCH + 1, actions: 0 });

    const rows = new Map((await server.db.memory.findMany({ where: { orgId }, select: { id: true, text: true, searchText: true } })).map((row) => [row.id, row]));
    const bytes = (ids: string[]) => ids.reduce((sum, id) => sum + Buffer.byteLength(rows.get(id)!.text) + Buffer.byteLength(rows.get(id)!.searchText), 0);
    // Every memory once, in pages of at most REFLECTION_PAGE_BYTES, then an empty read past the last.
    expect(reads.flatMap(({ ids }) => ids).sort()).toEqual([...rows.keys()].sort());
    expect(reads.at(-1)!.ids).toEqual([]);
    expect(reads.length).toBeGreaterThan(3);
    for (const { ids } of reads) expect(bytes(ids)).toBeLessThanOrEqual(REFLECTION_PAGE_BYTES);
    expect(bytes(reads[0]!.ids) + bytes(reads[1]!.ids.slice(0, 1))).toBeGreaterThan(REFLECTION_PAGE_BYTES);
    // Between reading one page and the next: the pauses its analysis is due (with what the page before left over
    // of a batch, one more at most), and the one between pages.
    for (let i = 1; i < reads.length; i++) {
      const due = Math.floor(reads[i - 1]!.ids.reduce((units, id) => units + textUnits(rows.get(id)!.searchText), 0) / REFLECTION_BATCH);
      expect(reads[i]!.pauses - reads[i - 1]!.pauses).toBeGreaterThanOrEqual(due + 1);
      expect(reads[i]!.pauses - reads[i - 1]!.pauses).toBeLessThanOrEqual(due + 2);
    }
  });

  it("reads a page of one memory when that memory alone passes the bound on bytes", async () => {
    const { orgId, api } = await tenant();
    for (const text of ["first memory, long enough to pass a bound of ten bytes", "second memory"]) expect((await api.memory.encode({ body: { text } })).status).toBe(201);
    const scope = { orgId, environment: "production" } as const;
    const reflectionMemories = server.services.store.reflection().memories;
    const first = await reflectionMemories.page(scope, ["durable"], null, 10, 10);
    expect(first.map(({ text }) => text)).toEqual(["first memory, long enough to pass a bound of ten bytes"]);
    const second = await reflectionMemories.page(scope, ["durable"], first[0]!, 10, 10);
    expect(second.map(({ text }) => text)).toEqual(["second memory"]);
    expect(await reflectionMemories.page(scope, ["durable"], second[0]!, 10, 10)).toEqual([]);
    expect(await reflectionMemories.page(scope, ["durable"], null, 10, 1_000_000)).toHaveLength(2);
  });

  it("reads a page in one statement, so that nothing can change between its sizes and its rows", async () => {
    const { orgId, encode } = await tenant();
    for (const text of ["memory one", "memory two", "memory three", "memory four"]) await encode({ text });
    const scope = { orgId, environment: "production" } as const;
    const order = (await server.services.store.reflection().memories.page(scope, ["durable"], null, 10)).map(({ id }) => id);
    expect(order).toHaveLength(4);
    const statements: string[] = [];
    const reads = prismaReads(server.db as unknown as PrismaTx);
    const counted = { changes: () => Promise.reject(new Error("a page changes nothing")), rows: <T,>(statement: Sql) => (statements.push(statement.text), reads.rows<T>(statement)) };
    const pages = reflectionMemoryRepository(counted, dialectFor(server.database.provider), counted);
    const page = await pages.page(scope, ["durable"], null, 3, 1_000_000);
    expect(statements).toHaveLength(1);
    expect(page.map(({ id }) => id)).toEqual(order.slice(0, 3));
    expect(page.every((memory) => memory.createdAt instanceof Date && memory.recentUses.length === 1 && memory.activation === null)).toBe(true);
    expect((await pages.page(scope, ["durable"], page.at(-1)!, 3, 1_000_000)).map(({ id }) => id)).toEqual(order.slice(3));
  });

  it("keeps the best-supported memory: most reinforcements, then highest confidence, then the oldest", async () => {
    const { encode, reinforce, run, states } = await tenant();
    // Three groups of twelve words, sharing two with the next group at most.
    const text = (n: number) => ({ text: sentence((n - 1) * 10, 12), confidence: 0.8 });

    // Reinforcements beat confidence and age.
    const older = await encode({ ...text(1), confidence: 0.99 });
    const reinforced = await encode(text(1));
    await reinforce(reinforced, 2);
    const once = await encode(text(1));
    await reinforce(once);
    // Confidence beats age.
    const old2 = await encode(text(2));
    const confident = await encode({ ...text(2), confidence: 0.95 });
    // Age decides the rest.
    const oldest = await encode(text(3));
    const younger = await encode(text(3));

    await run();
    expect(await states(older, reinforced, once)).toEqual([duplicateOf(reinforced), durable, duplicateOf(reinforced)]);
    expect(await states(old2, confident)).toEqual([duplicateOf(confident), durable]);
    expect(await states(oldest, younger)).toEqual([durable, duplicateOf(oldest)]);
  });

  it("merges only what is similar to the survivor itself, not chains of drift", async () => {
    const { encode, reinforce, run, states } = await tenant();
    const a = { text: sentence(0, 20) };
    const b = { text: `${sentence(0, 19)} ${WORDS[25]}` };
    const c = { text: `${sentence(0, 18)} ${WORDS[25]} ${WORDS[26]}` };
    expect(similarity(a, b)).toBeGreaterThanOrEqual(0.85);
    expect(similarity(b, c)).toBeGreaterThanOrEqual(0.85);
    expect(similarity(a, c)).toBeLessThan(0.85);
    const [idA, idB, idC] = [await encode(a), await encode(b), await encode(c)];
    await reinforce(idA);

    expect(await run()).toMatchObject({ examined: 3, actions: 2 });
    expect(await states(idA, idB, idC)).toEqual([durable, duplicateOf(idA), durable]);
    expect(await run()).toMatchObject({ examined: 2, actions: 0 });

    // With the middle one best supported, both ends are similar to it and join it.
    const other = await tenant();
    const [oA, oB, oC] = [await other.encode(a), await other.encode(b), await other.encode(c)];
    await other.reinforce(oB);
    expect(await other.run()).toMatchObject({ actions: 3 });
    expect(await other.states(oA, oB, oC)).toEqual([duplicateOf(oB), durable, duplicateOf(oB)]);
  });

  it("does not merge different subjects, though a memory without a subject joins one with", async () => {
    const { encode, run, states } = await tenant();
    // The same terms in both: only the subjects tell them apart.
    const text = `alpha bravo ${sentence(2, 10)}`;
    const alpha = await encode({ subject: "Alpha", text });
    const bravo = await encode({ subject: "bravo", text });
    const loose = await encode({ text });
    const alphaAgain = await encode({ subject: "ALPHA", text });

    await run();
    expect(await states(alpha, bravo, loose, alphaAgain)).toEqual([durable, durable, duplicateOf(alpha), duplicateOf(alpha)]);
    expect(await run()).toMatchObject({ actions: 0 });

    // Without a subject, naming it in the text is the same memory.
    const named = await encode({ subject: "payments-api", text: "Deploys on Monday with make release." });
    const unnamed = await encode({ text: "payments-api deploys on Monday with make release." });
    expect(await run()).toMatchObject({ actions: 2 });
    expect(await states(named, unnamed)).toEqual([durable, duplicateOf(named)]);
  });

  it("does not merge short memories that differ in what matters", async () => {
    const { encode, run, states } = await tenant();
    const monday = { subject: "payments-api", text: "Deploys on Monday." };
    const friday = { subject: "payments-api", text: "Deploys on Friday." };
    // The day is one term of few, the subject's aside: at most the lowest similarity the settings allow.
    expect(similarity(monday, friday)).toBeLessThanOrEqual(0.5);
    const ids = [await encode(monday), await encode(friday), await encode({ text: "The cache expires hourly." }), await encode({ text: "The cache expires daily." })];
    expect(await run()).toMatchObject({ examined: 4, actions: 0 });
    expect(await states(...ids)).toEqual([durable, durable, durable, durable]);
  });

  it("keeps agents, environments and organizations apart", async () => {
    const production = await tenant("production");
    const testing = await tenant("test", production.orgId);
    const elsewhere = await tenant("production");
    const memory = { subject: "billing", text: `Billing ${sentence(3, 12)}.` };

    const shared = await production.encode(memory);
    const triage = await production.encode(memory, "triage");
    const support = await production.encode(memory, "support");
    const inTest = await testing.encode(memory);
    const otherOrg = await elsewhere.encode(memory);
    expect(await production.run()).toMatchObject({ examined: 3, actions: 0 });
    expect(await testing.run()).toMatchObject({ examined: 1, actions: 0 });

    // A duplicate inside each scope merges there only.
    const triageCopy = await production.encode(memory, "triage");
    const testCopy = await testing.encode(memory);
    expect(await production.run()).toMatchObject({ actions: 2 });
    expect(await production.states(shared, triage, support, triageCopy, inTest, testCopy, otherOrg)).toEqual([
      durable,
      durable,
      durable,
      duplicateOf(triage),
      durable,
      durable,
      durable,
    ]);
    expect(await testing.run()).toMatchObject({ actions: 2 });
    expect(await testing.states(inTest, testCopy)).toEqual([durable, duplicateOf(inTest)]);
    expect(await elsewhere.run()).toMatchObject({ examined: 1, actions: 0 });
  });

  it("uses the similarity setting, and a merge a person undid stays undone", async () => {
    const { api, encode, run, states } = await tenant();
    const a = { text: sentence(0, 8) };
    const b = { text: `${sentence(0, 8)} ${WORDS[30]}` };
    const sim = similarity(a, b);
    expect(sim).toBeLessThan(0.9);
    const [idA, idB] = [await encode(a), await encode(b)];
    const strict = structuredClone(DEFAULT_REFLECTION_SETTINGS);
    strict.processes.duplicates.similarity = 0.9;
    expect(await run(strict)).toMatchObject({ actions: 0 });
    const loose = structuredClone(DEFAULT_REFLECTION_SETTINGS);
    loose.processes.duplicates.similarity = Math.floor(sim * 100) / 100;
    expect(await run(loose)).toMatchObject({ actions: 2 });
    expect(await states(idA, idB)).toEqual([durable, duplicateOf(idA)]);

    // The state chosen can be undone: a restore brings it back, and reflection does not merge it again.
    expect((await api.memory.restore({ params: { id: idB }, body: {} })).status).toBe(200);
    expect(await run(loose)).toMatchObject({ examined: 2, actions: 0 });
    expect(await states(idB)).toEqual([{ state: "durable", duplicateOfId: idA }]);
  });

  it("merges the planted duplicates among a few thousand memories, and only those", async () => {
    const { orgId, run, counts } = await tenant();
    const next = random(42);
    const syllables = ["ka", "lo", "mi", "nu", "pe", "ra", "so", "ti", "vu", "za", "be", "do", "fu", "gi", "ho", "ju"];
    const word = () => `q${Array.from({ length: 4 }, () => syllables[Math.floor(next() * syllables.length)]).join("")}`;
    const start = Date.now() - 86_400_000;
    const memories: PlannedMemory[] = [];
    const add = (text: string) => {
      const id = `mem_${randomUUID().replaceAll("-", "")}`;
      memories.push({
        id, orgId, environment: "production", agentSlug: null, text, subject: null, memoryKind: "fact", confidence: 0.8, state: "durable",
        source: "api", sourceRequestId: null, sourceTokenId: null, sourceActor: null, idempotencyKey: null, eventId: null,
        createdAt: new Date(start + memories.length * 1000),
      });
      return id;
    };
    const planted = new Map<string, string>();
    for (let i = 0; i < 2400; i++) {
      const text = Array.from({ length: 16 }, word).join(" ");
      const id = add(text);
      if (i % 24 === 0) planted.set(add(`${text} ${word()}`), id);
    }
    // A crowd alike in most words but below the threshold, with one set of exact copies.
    const template = Array.from({ length: 14 }, word).join(" ");
    const crowd = Array.from({ length: 500 }, () => add(`${template} ${word()} ${word()} ${word()}`));
    for (let i = 0; i < 5; i++) planted.set(add(memories.find((m) => m.id === crowd[0])!.text), crowd[0]!);
    await server.services.store.writeAtomically((batch) =>
      batch.insertMemories(memories, memories.map((m) => ({ memoryId: m.id, action: "created", fromState: null, toState: "durable", actor: "test", tokenId: null, reason: null, requestId: null, createdAt: m.createdAt }))),
    );
    const before = await counts();

    const result = await run();
    expect(result.examined).toBe(memories.length);
    const suppressed = await server.db.memory.findMany({ where: { orgId, state: "suppressed" }, select: { id: true, duplicateOfId: true } });
    expect(new Map(suppressed.map((m) => [m.id, m.duplicateOfId]))).toEqual(planted);
    const survivors = new Set(planted.values()).size;
    expect(result.actions).toBe(planted.size + survivors);
    expect(await counts()).toEqual({ memories: before.memories, history: before.history + planted.size + survivors });
    expect(await run()).toMatchObject({ examined: memories.length - planted.size, actions: 0 });
  });
});
