import { describe, expect, it } from "vitest";
import { collectionStatsCache, MAX_CHANGED_TEXT, MAX_CHANGES_APPLIED, MAX_TERMS_PER_COUNT, MAX_TERMS_PER_SCOPE } from "../src/domain/retrieval/collection-stats";
import type { CollectionChange, MemorySearch } from "../src/domain/retrieval/ports";
import { countTurns } from "./event-loop-turns";

type Search = Pick<MemorySearch, "collectionState" | "documentFrequencies" | "collectionChanges">;

/**
 * The cache's rules over a scripted collection that keeps the same contract as the database's: a version per
 * write, a change log whose oldest versions can be pruned, and counts taken at the current version.
 */
function scripted() {
  const memories = new Map<string, string[]>();
  let version = 0n;
  let log: CollectionChange[] = [];
  const calls = { counted: [] as string[][], logReads: 0 };
  // A read held open: its answer is taken when it is called (its snapshot), and given when the test releases it.
  const held = { counts: null as Promise<void> | null, changes: null as Promise<void> | null };
  const hold = (read: keyof typeof held) => {
    let release!: () => void;
    held[read] = new Promise((resolve) => (release = resolve));
    return release;
  };
  const answer = async <T>(read: keyof typeof held, value: T): Promise<T> => {
    const gate = held[read];
    held[read] = null;
    if (gate) await gate;
    return value;
  };

  // As the triggers do, a write that changes nothing does not move the version; one that only reinforces
  // memories (or changes their confidence) moves it and logs them without terms.
  const write = (entering: Array<[string, string[]]>, leaving: string[], reranked: string[] = []) => {
    if (entering.length + leaving.length + reranked.length === 0) return;
    version += 1n;
    for (const id of leaving) {
      log.push({ version, delta: -1, memoryId: id, candidate: null, terms: memories.get(id)! });
      memories.delete(id);
    }
    for (const id of reranked) log.push({ version, delta: 0, memoryId: id, candidate: null, terms: [] });
    for (const [id, terms] of entering) {
      memories.set(id, terms);
      log.push({ version, delta: 1, memoryId: id, candidate: null, terms });
    }
  };
  const truth = (term: string) => [...memories.values()].filter((terms) => terms.includes(term)).length;

  const search: Search = {
    collectionState: async () => ({ documents: memories.size, averageLength: 3, version, vectorsVersion: 0n }),
    documentFrequencies: async (_scope, terms) => {
      calls.counted.push([...terms]);
      return answer("counts", { version, documents: terms.map(truth) });
    },
    collectionChanges: async (_scope, { after, upTo, limit, maxText }) => {
      calls.logReads += 1;
      if (upTo <= after) return [];
      const changes = log.filter((change) => change.version > after && change.version <= upTo);
      const text = changes.reduce((sum, change) => sum + change.terms.join(" ").length, 0);
      return answer("changes", changes.length > limit || text > maxText || changes[0]?.version !== after + 1n ? null : changes);
    },
  };
  const stats = collectionStatsCache(search);
  const scope = { orgId: "org_1", environment: "production" as const };
  return {
    calls,
    hold,
    write,
    truth,
    prune: (upTo: bigint) => (log = log.filter((change) => change.version > upTo)),
    version: () => version,
    snapshot: () => stats(scope),
    frequencies: async (terms: string[]) => Object.fromEntries((await (await stats(scope)).statsFor(terms)).documentFrequency),
  };
}

/** Lets started reads reach the store. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("collection statistics cache", () => {
  it("counts each term once while the scope's version stays", async () => {
    const s = scripted();
    s.write([["m1", ["ledger", "deploy"]], ["m2", ["deploy"]]], []);
    expect(await s.frequencies(["ledger", "deploy", "unheard"])).toEqual({ ledger: 1, deploy: 2, unheard: 0 });
    expect(await s.frequencies(["ledger", "unheard"])).toEqual({ ledger: 1, unheard: 0 });
    expect(s.calls.counted).toEqual([["ledger", "deploy", "unheard"]]);
    expect(s.calls.logReads).toBe(0);
  });

  it("brings counted terms up to date from the change log after writes, without counting them again", async () => {
    const s = scripted();
    s.write([["m1", ["ledger", "deploy"]], ["m2", ["deploy"]]], []);
    await s.frequencies(["ledger", "deploy", "unheard"]);
    s.write([["m3", ["deploy", "unheard", "deploy"]]], []);
    s.write([], ["m1"]);
    s.write([["m1b", ["ledger", "settles"]]], ["m2"]);
    s.write([], [], ["m3"]);
    expect(await s.frequencies(["ledger", "deploy", "unheard"])).toEqual({ ledger: 1, deploy: 1, unheard: 1 });
    expect(s.calls.counted).toHaveLength(1);
    expect(s.calls.logReads).toBe(1);
  });

  it("counts again when the log no longer holds every version since, or holds too many changes", async () => {
    const s = scripted();
    s.write([["m1", ["ledger"]]], []);
    await s.frequencies(["ledger"]);
    s.write([["m2", ["ledger"]]], []);
    s.write([["m3", ["ledger"]]], []);
    s.prune(s.version() - 1n);
    expect(await s.frequencies(["ledger"])).toEqual({ ledger: 3 });
    expect(s.calls.counted).toEqual([["ledger"], ["ledger"]]);

    s.write(
      Array.from({ length: MAX_CHANGES_APPLIED + 1 }, (_, i): [string, string[]] => [`bulk${i}`, ["ledger"]]),
      [],
    );
    expect(await s.frequencies(["ledger"])).toEqual({ ledger: MAX_CHANGES_APPLIED + 4 });
    expect(s.calls.counted).toHaveLength(3);
  });

  it("counts again rather than check more analysed text than its budget", async () => {
    const s = scripted();
    s.write([["m1", ["ledger"]]], []);
    await s.frequencies(["ledger"]);
    const long = Array.from({ length: MAX_CHANGED_TEXT / 8 }, (_, i) => `word${String(i).padStart(3, "0")}`);
    s.write([["m2", ["ledger", ...long]]], []);
    expect(await s.frequencies(["ledger"])).toEqual({ ledger: 2 });
    expect(s.calls.counted).toEqual([["ledger"], ["ledger"]]);
  });

  it("applies each change once when retrievals overlap", async () => {
    const s = scripted();
    s.write([["m1", ["ledger"]]], []);
    await s.frequencies(["ledger"]);
    s.write([["m2", ["ledger"]]], []);
    const [a, b] = await Promise.all([s.snapshot(), s.snapshot()]);
    const both = await Promise.all([a.statsFor(["ledger"]), b.statsFor(["ledger"])]);
    expect(both.map((stats) => stats.documentFrequency.get("ledger"))).toEqual([2, 2]);
    expect(await s.frequencies(["ledger"])).toEqual({ ledger: 2 });
  });

  it("never brings a count up to date with a log read that starts after the count's version", async () => {
    // A retrieval reads the log from a term's cached version; meanwhile another fills the cache past its bound,
    // empties it and stores an older count of the term. The log read cannot bring that older count up to date.
    const s = scripted();
    s.write([["m1", ["ledger"]]], []);
    const filler = Array.from({ length: MAX_TERMS_PER_SCOPE - 10 }, (_, i) => `filler${i}`);
    await s.frequencies(filler);
    const novel = Array.from({ length: 20 }, (_, i) => `novel${i}`);
    const releaseOldCount = s.hold("counts");
    const oldCount = (await s.snapshot()).statsFor(["ledger", ...novel]); // counted at version 1, answer held
    await settled();
    s.write([["m2", ["ledger"]]], []);
    s.write([["m3", ["ledger"]]], []);
    expect(await s.frequencies(["ledger"])).toEqual({ ledger: 3 }); // counted at version 3, cached
    s.write([["m4", ["ledger"]]], []);
    s.write([["m5", ["ledger"]]], []);
    const releaseLogRead = s.hold("changes");
    const caughtUp = (await s.snapshot()).statsFor(["ledger"]); // reads the log after version 3, answer held
    await settled();
    releaseOldCount();
    expect((await oldCount).documentFrequency.get("ledger")).toBe(1);
    releaseLogRead();
    expect((await caughtUp).documentFrequency.get("ledger")).toBe(5);
    expect(await s.frequencies(["ledger"])).toEqual({ ledger: 5 });
    s.write([["m6", ["ledger"]]], []);
    expect(await s.frequencies(["ledger"])).toEqual({ ledger: 6 });
  });

  it("stays equal to a fresh count through a long run of random writes and reads", async () => {
    const s = scripted();
    const vocabulary = ["ledger", "deploy", "ferry", "quokka", "runner", "cache", "team", "payments"];
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const pick = () => Array.from(new Set(Array.from({ length: 1 + random(4) }, () => vocabulary[random(vocabulary.length)]!)));
    let next = 0;
    const live: string[] = [];
    for (let step = 0; step < 400; step++) {
      const entering = Array.from({ length: random(3) }, (): [string, string[]] => [`m${next++}`, pick()]);
      const leaving = live.length > 0 && random(3) === 0 ? live.splice(random(live.length), 1) : [];
      const reranked = live.length > 0 && random(4) === 0 ? [live[random(live.length)]!] : [];
      s.write(entering, leaving, reranked);
      live.push(...entering.map(([id]) => id));
      if (random(50) === 0) s.prune(s.version() - BigInt(random(4)));
      const asked = pick();
      expect(await s.frequencies(asked)).toEqual(Object.fromEntries(asked.map((term) => [term, s.truth(term)])));
    }
    // Counted again only for words not seen before and after the log was pruned (20 times in this run).
    expect(s.calls.counted.length).toBeLessThan(30);
  });

  it("counts thousands of terms in bounded statements, giving the event loop a turn between them", async () => {
    const s = scripted();
    s.write([["m1", ["ledger"]]], []);
    const many = Array.from({ length: 3 * MAX_TERMS_PER_COUNT }, (_, i) => `word${i}`);
    const turns = countTurns();
    const counted = await s.frequencies(["ledger", ...many]);
    const taken = turns.stop();
    expect(counted).toMatchObject({ ledger: 1, word0: 0 });
    expect(s.calls.counted.map((terms) => terms.length)).toEqual([MAX_TERMS_PER_COUNT, MAX_TERMS_PER_COUNT, MAX_TERMS_PER_COUNT, 1]);
    expect(taken).toBeGreaterThanOrEqual(3);
  });

  it("reads the totals afresh for every retrieval", async () => {
    const s = scripted();
    s.write([["m1", ["ledger"]]], []);
    await s.frequencies(["ledger"]);
    s.write([["m2", ["other"]]], []);
    expect(await (await s.snapshot()).statsFor(["ledger"])).toMatchObject({ documents: 2, averageLength: 3 });
  });
});
