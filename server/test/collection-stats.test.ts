import { describe, expect, it } from "vitest";
import { COMMON_TERM_DOCUMENTS, COMMON_TERM_TTL_MS, collectionStatsCache } from "../src/domain/retrieval/collection-stats";
import type { CollectionState, MemorySearch } from "../src/domain/retrieval/ports";

/** The cache's rules over a scripted collection: which terms it counts again, and when. */
function scripted() {
  let now = 0;
  const state: CollectionState = { documents: 5_000, averageLength: 12, version: 1n, vectorsVersion: 0n };
  const documents = new Map([
    ["ledger", 3],
    ["deploy", COMMON_TERM_DOCUMENTS + 500],
  ]);
  const counted: string[][] = [];
  const search: Pick<MemorySearch, "collectionState" | "documentFrequencies"> = {
    collectionState: async () => ({ ...state }),
    documentFrequencies: async (_scope, terms) => {
      counted.push([...terms]);
      return terms.map((term) => documents.get(term) ?? 0);
    },
  };
  const stats = collectionStatsCache(search, () => new Date(now));
  const scope = { orgId: "org_1", environment: "production" as const };
  return {
    state,
    documents,
    counted,
    advance: (ms: number) => (now += ms),
    statsFor: async (terms: string[]) => (await stats(scope)).statsFor(terms),
    frequencies: async (terms: string[]) => Object.fromEntries((await (await stats(scope)).statsFor(terms)).documentFrequency),
  };
}

describe("collection statistics cache", () => {
  it("counts each term once while the scope's version stays", async () => {
    const s = scripted();
    expect(await s.frequencies(["ledger", "deploy", "unheard"])).toEqual({ ledger: 3, deploy: COMMON_TERM_DOCUMENTS + 500, unheard: 0 });
    expect(await s.frequencies(["ledger", "unheard"])).toEqual({ ledger: 3, unheard: 0 });
    expect(s.counted).toEqual([["ledger", "deploy", "unheard"]]);
  });

  it("counts rare and unseen terms again after any write, common ones after their time", async () => {
    const s = scripted();
    await s.frequencies(["ledger", "deploy", "unheard"]);
    s.state.version = 2n;
    s.documents.set("unheard", 1);
    expect(await s.frequencies(["ledger", "deploy", "unheard"])).toMatchObject({ unheard: 1 });
    expect(s.counted.at(-1)).toEqual(["ledger", "unheard"]);
    s.advance(COMMON_TERM_TTL_MS);
    await s.frequencies(["deploy"]);
    expect(s.counted.at(-1)).toEqual(["deploy"]);
  });

  it("reads the totals afresh for every retrieval", async () => {
    const s = scripted();
    await s.frequencies(["ledger"]);
    s.state.documents = 5_001;
    expect(await s.statsFor(["ledger"])).toMatchObject({ documents: 5_001, averageLength: 12 });
  });
});
