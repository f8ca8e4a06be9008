import { describe, expect, it } from "vitest";
import { analyzeText, queryTerms } from "../src/analyze";
import { rankLexically } from "../src/lexical";
import { expandQuery, SYNONYM_WEIGHT } from "../src/synonyms";

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

describe("BM25 with collection statistics", () => {
  it("weights terms by the whole collection, not by the candidates fetched", () => {
    const candidates = [analysed("x", "ledger reconciliation job", null), analysed("y", "ledger owners", null)];
    const terms = queryTerms("ledger reconciliation");
    const stats = (ledger: number, reconciliation: number) => ({
      documents: 1000,
      averageLength: 3,
      documentFrequency: new Map([["ledger", ledger], ["reconcili", reconciliation]]),
    });
    // Rare "reconciliation": only x has it, and it decides.
    const rareReconciliation = rankLexically(terms, candidates, stats(900, 2));
    expect(rareReconciliation.map((m) => m.id)).toEqual(["x", "y"]);
    expect(rareReconciliation[0]!.score).toBeGreaterThan(10 * rareReconciliation[1]!.score);
    // Common "reconciliation" adds little, and the shorter document wins on the rare shared term.
    expect(rankLexically(terms, candidates, stats(2, 900)).map((m) => m.id)).toEqual(["y", "x"]);
  });

  it("treats a term the statistics do not know yet as rare rather than failing", () => {
    const [match] = rankLexically(queryTerms("ledger"), [analysed("x", "ledger", null)], { documents: 10, averageLength: 1, documentFrequency: new Map() });
    expect(match!.score).toBeGreaterThan(0);
  });
});

describe("synonym expansion", () => {
  it("adds the other words of a term's group at a lower weight, keeping the query's own words at 1", () => {
    const weights = expandQuery(queryTerms("prod outage"));
    expect(weights.get("prod")).toBe(1);
    expect(weights.get("outag")).toBe(1);
    expect(weights.get("product")).toBe(SYNONYM_WEIGHT);
    expect(weights.get("incid")).toBe(SYNONYM_WEIGHT);
    expect(expandQuery(queryTerms("incident outage")).get("incid")).toBe(1);
  });

  it("lets abbreviations and words no stemmer joins meet: k8s and kubernetes, deploy and release", () => {
    expect(expandQuery(queryTerms("k8s")).get(queryTerms("kubernetes")[0]!)).toBe(SYNONYM_WEIGHT);
    expect(expandQuery(queryTerms("deploy")).get(queryTerms("release")[0]!)).toBe(SYNONYM_WEIGHT);
  });

  it("finds a memory in other words, but ranks the exact wording first", () => {
    const docs = [analysed("exact", "The prod outage lasted an hour.", null), analysed("synonym", "The production incident lasted an hour.", null), analysed("other", "Lunch is at noon.", null)];
    const ranked = rankLexically(expandQuery(queryTerms("prod outage")), docs);
    expect(ranked.map((m) => m.id)).toEqual(["exact", "synonym"]);
    expect(rankLexically(queryTerms("prod outage"), docs).map((m) => m.id)).toEqual(["exact"]);
  });

  it("leaves terms outside the thesaurus alone", () => {
    expect([...expandQuery(queryTerms("payments-api INC-42"))]).toEqual(queryTerms("payments-api INC-42").map((t) => [t, 1]));
  });
});
