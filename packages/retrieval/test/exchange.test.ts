import { describe, expect, it } from "vitest";
import { exchangeNeighbours, NEIGHBOUR_WEIGHTS, withExchangeContext } from "../src/exchange";

describe("relevance lent within an exchange", () => {
  const matches = [
    { id: "knee", score: 1 },
    { id: "brace", score: 0.6 },
  ];
  const scores = (ranked: { id: string; score: number }[]) => Object.fromEntries(ranked.map((m) => [m.id, m.score]));

  it("lends the side's weight to the nearest neighbour and less to farther ones, adding neighbours that matched nothing", () => {
    const ranked = withExchangeContext(matches, [
      { anchorId: "knee", id: "twisted-it", side: "after", steps: 1 },
      { anchorId: "knee", id: "swollen-all-week", side: "after", steps: 2 },
    ]);
    const score = scores(ranked);
    expect(score["twisted-it"]).toBeCloseTo(NEIGHBOUR_WEIGHTS.after);
    expect(score["swollen-all-week"]).toBeCloseTo(NEIGHBOUR_WEIGHTS.after / 2);
    expect(score.knee).toBe(1);
    expect(ranked.map((m) => m.id)).toEqual(["knee", "brace", "twisted-it", "swollen-all-week"].sort((a, b) => score[b]! - score[a]!));
  });

  it("lends more to a reply written after the match than to the turn before it", () => {
    const score = scores(
      withExchangeContext(matches, [
        { anchorId: "knee", id: "how-is-it", side: "before", steps: 1 },
        { anchorId: "knee", id: "twisted-it", side: "after", steps: 1 },
      ]),
    );
    expect(NEIGHBOUR_WEIGHTS.after).toBeGreaterThan(NEIGHBOUR_WEIGHTS.before);
    expect(score["how-is-it"]).toBeCloseTo(NEIGHBOUR_WEIGHTS.before);
    expect(score["twisted-it"]).toBeCloseTo(NEIGHBOUR_WEIGHTS.after);
  });

  it("adds the largest share to a memory's own relevance, never the sum of shares", () => {
    const score = scores(
      withExchangeContext(matches, [
        { anchorId: "knee", id: "brace", side: "after", steps: 1 },
        { anchorId: "knee", id: "between", side: "after", steps: 1 },
        { anchorId: "brace", id: "between", side: "before", steps: 1 },
      ]),
    );
    expect(score.brace).toBeCloseTo(0.6 + NEIGHBOUR_WEIGHTS.after);
    expect(score.between).toBeCloseTo(NEIGHBOUR_WEIGHTS.after);
  });

  it("ignores neighbours of memories that are not among the matches, and changes nothing without neighbours", () => {
    expect(withExchangeContext(matches, [{ anchorId: "gone", id: "x", side: "after", steps: 1 }])).toEqual(matches);
    expect(withExchangeContext(matches, [])).toEqual(matches);
  });
});

describe("neighbours of an anchor", () => {
  const written = (id: string, minute: number) => ({ id, createdAt: new Date(Date.UTC(2026, 4, 14, 18, minute)) });

  it("puts each side nearest first, whatever order they were read in, and the anchor's own instant on neither side", () => {
    const around = [written("after-2", 12), written("before-2", 7), written("same-instant", 10), written("after-1", 11), written("before-1", 9)];
    expect(exchangeNeighbours(written("anchor", 10), around)).toEqual([
      { anchorId: "anchor", id: "before-1", side: "before", steps: 1 },
      { anchorId: "anchor", id: "before-2", side: "before", steps: 2 },
      { anchorId: "anchor", id: "after-1", side: "after", steps: 1 },
      { anchorId: "anchor", id: "after-2", side: "after", steps: 2 },
    ]);
  });
});
