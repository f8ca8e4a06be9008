import { describe, expect, it } from "vitest";
import { analyzeText, queryTerms } from "../src/analyze";
import { rankLexically } from "../src/lexical";

const analysed = (id: string, text: string, subject: string | null) => ({
  id,
  terms: analyzeText(`${subject ?? ""} ${text}`),
  subjectTerms: subject ? analyzeText(subject) : [],
});

const docs = [
  analysed("a", "Payments deploy with make release.", "payments"),
  analysed("b", "Payments retries are capped at three.", null),
  analysed("c", "Lunch is at noon.", null),
  analysed("d", "Release trains leave on Tuesdays, release notes follow.", "release"),
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
      analysed("common", "service service", null),
      analysed("rare", "ledger", null),
      analysed("x", "service", null),
      analysed("y", "service", null),
    ];
    const [top] = rankLexically(queryTerms("service ledger"), many);
    expect(top!.id).toBe("rare");
  });
});
