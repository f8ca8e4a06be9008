import { describe, expect, it } from "vitest";
import { queryTerms } from "../src/analyze";
import { rankLexically } from "../src/lexical";

const docs = [
  { id: "a", text: "Payments deploy with make release.", subject: "payments" },
  { id: "b", text: "Payments retries are capped at three.", subject: null },
  { id: "c", text: "Lunch is at noon.", subject: null },
  { id: "d", text: "Release trains leave on Tuesdays, release notes follow.", subject: "release" },
];

describe("BM25 ranking", () => {
  it("leaves out documents that match no term", () => {
    expect(rankLexically(queryTerms("payments"), docs).map((m) => m.id).sort()).toEqual(["a", "b"]);
    expect(rankLexically(queryTerms("kubernetes"), docs)).toEqual([]);
    expect(rankLexically([], docs)).toEqual([]);
  });

  it("ranks a document matching more query terms higher", () => {
    expect(rankLexically(queryTerms("payments release"), docs)[0]!.id).toBe("a");
  });

  it("weights the subject above the text", () => {
    const [first, second] = rankLexically(queryTerms("payments"), docs);
    expect(first!.id).toBe("a");
    expect(first!.score).toBeGreaterThan(second!.score);
  });

  it("rewards rarer terms more (inverse document frequency)", () => {
    const many = [
      { id: "common", text: "service service", subject: null },
      { id: "rare", text: "ledger", subject: null },
      { id: "x", text: "service", subject: null },
      { id: "y", text: "service", subject: null },
    ];
    const [top] = rankLexically(queryTerms("service ledger"), many);
    expect(top!.id).toBe("rare");
  });
});
