import { describe, expect, it } from "vitest";
import { NEIGHBOUR_WEIGHT, withExchangeContext } from "../src/exchange";

describe("relevance lent within an exchange", () => {
  const matches = [
    { id: "knee", score: 1 },
    { id: "brace", score: 0.6 },
  ];

  it("lends the weight to the nearest neighbour and less to farther ones, adding neighbours that matched nothing", () => {
    const ranked = withExchangeContext(matches, [
      { anchorId: "knee", id: "what-happened", steps: 1 },
      { anchorId: "knee", id: "twisted-it", steps: 2 },
    ]);
    const score = Object.fromEntries(ranked.map((m) => [m.id, m.score]));
    expect(score["what-happened"]).toBeCloseTo(NEIGHBOUR_WEIGHT);
    expect(score["twisted-it"]).toBeCloseTo(NEIGHBOUR_WEIGHT / 2);
    expect(score.knee).toBe(1);
    expect(ranked.map((m) => m.id)).toEqual(["knee", "brace", "what-happened", "twisted-it"].sort((a, b) => score[b]! - score[a]!));
  });

  it("adds the largest share to a memory's own relevance, never the sum of shares", () => {
    const ranked = withExchangeContext(matches, [
      { anchorId: "knee", id: "brace", steps: 1 },
      { anchorId: "knee", id: "between", steps: 1 },
      { anchorId: "brace", id: "between", steps: 1 },
    ]);
    const score = Object.fromEntries(ranked.map((m) => [m.id, m.score]));
    expect(score.brace).toBeCloseTo(0.6 + NEIGHBOUR_WEIGHT);
    expect(score.between).toBeCloseTo(NEIGHBOUR_WEIGHT);
  });

  it("ignores neighbours of memories that are not among the matches, and changes nothing without neighbours", () => {
    expect(withExchangeContext(matches, [{ anchorId: "gone", id: "x", steps: 1 }])).toEqual(matches);
    expect(withExchangeContext(matches, [])).toEqual(matches);
  });
});
