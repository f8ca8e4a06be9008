import { describe, expect, it } from "vitest";
import { dot, nearest, reciprocalRankFusion, RRF_K, unitVector } from "../src/index";

describe("unit vectors", () => {
  it("scales to length one, so a dot product is the cosine", () => {
    const v = unitVector([3, 4]);
    expect([...v]).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    expect(dot(v, v)).toBeCloseTo(1, 6);
    expect(dot(unitVector([1, 0]), unitVector([0, 2]))).toBe(0);
  });

  it("refuses a zero vector instead of dividing by zero", () => {
    expect(() => unitVector([0, 0, 0])).toThrow(/zero/);
  });
});

describe("nearest neighbours", () => {
  const rows = new Float32Array([...unitVector([1, 0]), ...unitVector([1, 1]), ...unitVector([0, 1]), ...unitVector([-1, 0])]);
  const query = unitVector([1, 0.2]);

  it("returns the k most similar rows, best first", () => {
    expect(nearest(query, rows, 4, 2).map((n) => n.index)).toEqual([0, 1]);
    expect(nearest(query, rows, 4, 10).map((n) => n.index)).toEqual([0, 1, 2, 3]);
  });

  it("skips rows that are excluded or too dissimilar", () => {
    expect(nearest(query, rows, 4, 2, { include: (i) => i !== 0 }).map((n) => n.index)).toEqual([1, 2]);
    expect(nearest(query, rows, 4, 10, { minSimilarity: 0.5 }).map((n) => n.index)).toEqual([0, 1]);
  });

  it("agrees with a full sort on many rows", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
    const dims = 16;
    const count = 500;
    const many = new Float32Array(count * dims);
    for (let r = 0; r < count; r++) many.set(unitVector(Array.from({ length: dims }, random)), r * dims);
    const q = unitVector(Array.from({ length: dims }, random));
    const bySort = Array.from({ length: count }, (_, r) => ({ r, s: dot(q, many.subarray(r * dims, (r + 1) * dims)) }))
      .sort((a, b) => b.s - a.s)
      .slice(0, 25)
      .map((x) => x.r);
    expect(nearest(q, many, count, 25).map((n) => n.index)).toEqual(bySort);
  });
});

describe("reciprocal rank fusion", () => {
  it("sums 1/(k + rank) over the lists an item appears in", () => {
    const fused = reciprocalRankFusion([["a", "b", "c"], ["c", "a"]]);
    expect(fused.map((f) => f.id)).toEqual(["a", "c", "b"]);
    expect(fused[0]!.score).toBeCloseTo(1 / (RRF_K + 1) + 1 / (RRF_K + 2), 12);
    expect(fused[2]!.score).toBeCloseTo(1 / (RRF_K + 2), 12);
  });

  it("ranks an item both lists agree on above either list's lone favourite", () => {
    const fused = reciprocalRankFusion([["lexical-only", "both"], ["semantic-only", "both"]]);
    expect(fused[0]!.id).toBe("both");
  });

  it("passes a single list through in order", () => {
    expect(reciprocalRankFusion([["x", "y", "z"]]).map((f) => f.id)).toEqual(["x", "y", "z"]);
  });
});
