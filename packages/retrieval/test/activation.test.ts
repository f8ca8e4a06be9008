import { describe, expect, it } from "vitest";
import { baseLevelActivation, RECENT_USES, recallProbability, recordUse } from "../src/activation";
import { scoreMemory } from "../src/scoring";

const now = new Date("2026-11-22T12:00:00Z");
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000);
const once = (days: number) => ({ recentUses: [daysAgo(days)], totalUses: 1, firstUse: daysAgo(days) });

describe("base-level activation", () => {
  it("follows ACT-R's power law: a single use d days ago gives ln(d^-0.5)", () => {
    expect(baseLevelActivation(once(1), now)).toBeCloseTo(0, 10);
    expect(baseLevelActivation(once(4), now)).toBeCloseTo(Math.log(4 ** -0.5), 10);
  });

  it("decays with time", () => {
    const ages = [0, 1, 7, 30, 365].map((days) => baseLevelActivation(once(days), now));
    for (let i = 1; i < ages.length; i++) expect(ages[i]).toBeLessThan(ages[i - 1]!);
  });

  it("rises with every use", () => {
    const uses = (n: number) => ({ recentUses: Array.from({ length: n }, (_, i) => daysAgo(10 - i)), totalUses: n, firstUse: daysAgo(10) });
    expect(baseLevelActivation(uses(3), now)).toBeGreaterThan(baseLevelActivation(uses(2), now));
    expect(baseLevelActivation(uses(2), now)).toBeGreaterThan(baseLevelActivation(uses(1), now));
  });

  it("counts a fresh use as an hour old rather than infinitely strong", () => {
    expect(Number.isFinite(baseLevelActivation(once(0), now))).toBe(true);
  });

  it("folds uses older than the kept ones in with Petrov's approximation", () => {
    const exactUses = Array.from({ length: 40 }, (_, i) => daysAgo(100 - i * 2.5));
    const exact = baseLevelActivation({ recentUses: exactUses, totalUses: 40, firstUse: exactUses[0]! }, now);
    const kept = exactUses.slice(-RECENT_USES);
    const approximated = baseLevelActivation({ recentUses: kept, totalUses: 40, firstUse: exactUses[0]! }, now);
    expect(Math.abs(approximated - exact)).toBeLessThan(0.05);
    expect(approximated).toBeGreaterThan(baseLevelActivation({ recentUses: kept, totalUses: RECENT_USES, firstUse: kept[0]! }, now));
  });

  it("maps to a recall probability of one half at the threshold", () => {
    expect(recallProbability(0)).toBe(0.5);
    expect(recallProbability(2)).toBeGreaterThan(0.85);
    expect(recallProbability(-3)).toBeLessThan(0.05);
  });

  it("keeps the most recent uses", () => {
    let uses: Date[] = [];
    for (let i = 0; i < 15; i++) uses = recordUse(uses, daysAgo(15 - i));
    expect(uses).toHaveLength(RECENT_USES);
    expect(uses.at(-1)).toEqual(daysAgo(1));
    expect(uses[0]).toEqual(daysAgo(10));
  });
});

describe("scoring", () => {
  const base = { relevance: 2, confidence: 0.8 };

  it("puts a reinforced memory above an otherwise equal one", () => {
    const plain = scoreMemory({ ...base, ...once(30) }, now);
    const reinforced = scoreMemory({ ...base, recentUses: [daysAgo(30), daysAgo(2), daysAgo(1)], totalUses: 3, firstUse: daysAgo(30) }, now);
    expect(reinforced.score).toBeGreaterThan(plain.score);
  });

  it("lets a stale memory sink below a fresh one of equal relevance", () => {
    expect(scoreMemory({ ...base, ...once(400) }, now).score).toBeLessThan(scoreMemory({ ...base, ...once(1) }, now).score);
  });

  it("prefers higher confidence, all else equal", () => {
    expect(scoreMemory({ ...base, confidence: 0.9, ...once(5) }, now).score).toBeGreaterThan(scoreMemory({ ...base, confidence: 0.3, ...once(5) }, now).score);
  });

  it("keeps relevance dominant: a much more relevant stale memory still beats a barely relevant fresh one", () => {
    const relevantStale = scoreMemory({ relevance: 6, confidence: 0.8, ...once(365) }, now);
    const marginalFresh = scoreMemory({ relevance: 1, confidence: 0.8, ...once(0) }, now);
    expect(relevantStale.score).toBeGreaterThan(marginalFresh.score);
  });
});
