import { describe, expect, it } from "vitest";
import { CANDIDATE_POSTINGS_BUDGET, candidatePlan, candidateTerms, MAX_CANDIDATES, MAX_WORDS_REQUIRED } from "../src/domain/retrieval/candidate-plan";

describe("candidate terms", () => {
  const df = new Map([["inc-42", 3], ["deploy", 1500], ["api", 9000], ["ledger", 40]]);

  it("searches with the rarest terms while their postings fit the budget", () => {
    expect(candidateTerms(["api", "deploy", "inc-42", "ledger"], df)).toEqual(["inc-42", "ledger", "deploy"]);
  });

  it("always keeps the rarest term, however common", () => {
    expect(candidateTerms(["api"], df)).toEqual(["api"]);
  });

  it("adds terms the index has not seen, without letting them stand in for a real one", () => {
    expect(candidateTerms(["api", "brand-new"], df)).toEqual(["brand-new", "api"]);
  });
});

describe("candidate plan", () => {
  const limit = MAX_CANDIDATES;
  const word = (forms: string[], synonyms: string[] = []) => ({ forms, parts: [], synonyms: synonyms.map((synonym) => [synonym]) });

  it("finds every match best first in one lookup when the postings fit the budget", () => {
    const df = new Map([["ledger", 40], ["owner", 900]]);
    expect(candidatePlan([word(["ledger"]), word(["owner"], ["unheard"])], df)).toEqual([{ terms: ["ledger", "owner", "unheard"], match: "any", order: "relevance", limit }]);
  });

  it("asks first for the newest memories holding every common word, then for the rarest terms", () => {
    const df = new Map([["deploy", 16_000], ["payments-api", 11_000], ["paymentsapi", 11_000], ["payment", 12_000], ["api", 11_000]]);
    const concepts = [word(["deploy"]), { forms: ["payments-api", "paymentsapi"], parts: ["payment", "api"], synonyms: [] }];
    expect(candidatePlan(concepts, df)).toEqual([
      { groups: [["deploy"], ["payments-api", "paymentsapi"]], match: "all", order: "newest", limit },
      { terms: ["payments-api"], match: "any", order: "newest", limit },
    ]);
  });

  it("ranks the rare terms' matches by relevance when only the common words overflow the budget", () => {
    const df = new Map([["inc-42", 3], ["incid", CANDIDATE_POSTINGS_BUDGET * 5]]);
    expect(candidatePlan([word(["incid"]), word(["inc-42"])], df)).toEqual([
      { groups: [["incid"], ["inc-42"]], match: "all", order: "newest", limit },
      { terms: ["inc-42"], match: "any", order: "relevance", limit },
    ]);
  });

  it("requires only a long query's rarest words of its memories, so that the lookup costs what a short query's does", () => {
    // Five hundred words every memory holds, but for a few rarer ones.
    const words = Array.from({ length: 500 }, (_, i) => `w${i}`);
    const df = new Map(words.map((term, i) => [term, i % 50 === 7 ? 3_000 + i : 10_000]));
    const [all] = candidatePlan(words.map((term) => word([term])), df);
    const rarest = words.filter((_, i) => i % 50 === 7).sort((a, b) => df.get(a)! - df.get(b)!).slice(0, MAX_WORDS_REQUIRED);
    expect(all).toEqual({ groups: rarest.map((term) => [term]), match: "all", order: "newest", limit });
    // More rare words than are required: the rarest of them are.
    expect(words.filter((_, i) => i % 50 === 7).length).toBeGreaterThan(MAX_WORDS_REQUIRED);
  });

  it("needs no lookup for a query without terms", () => {
    expect(candidatePlan([], new Map())).toEqual([]);
  });

  it("requires every word the query used, in any of its forms, not every synonym, and searches synonyms by rarity", () => {
    const df = new Map([["outag", 5_000], ["prod", 4_000], ["incid", 30], ["product", 9_000], ["rollback", 2_000], ["roll", 0]]);
    expect(candidatePlan([word(["prod"], ["product"]), word(["outag"], ["incid"]), word(["roll", "rollback"])], df)).toEqual([
      { groups: [["prod"], ["outag"], ["rollback"]], match: "all", order: "newest", limit },
      { terms: ["roll", "incid"], match: "any", order: "relevance", limit },
    ]);
  });
});
