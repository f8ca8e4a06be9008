import { describe, expect, it } from "vitest";
import { CANDIDATE_POSTINGS_BUDGET, candidatePlan, candidateTerms, MAX_CANDIDATES } from "../src/domain/candidate-plan";

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

  it("finds every match best first in one lookup when the postings fit the budget", () => {
    const df = new Map([["ledger", 40], ["owner", 900]]);
    expect(candidatePlan(["ledger", "owner"], ["ledger", "owner", "unheard"], df)).toEqual([{ terms: ["ledger", "owner", "unheard"], match: "any", order: "relevance", limit }]);
  });

  it("asks first for the newest memories holding every common term, then for the rarest ones", () => {
    const df = new Map([["deploy", 16_000], ["payments-api", 11_000], ["api", 11_000]]);
    const terms = ["deploy", "payments-api", "api"];
    expect(candidatePlan(terms, terms, df)).toEqual([
      { terms: ["deploy", "payments-api", "api"], match: "all", order: "newest", limit },
      { terms: ["payments-api"], match: "any", order: "newest", limit },
    ]);
  });

  it("ranks the rare terms' matches by relevance when only the common words overflow the budget", () => {
    const df = new Map([["inc-42", 3], ["incid", CANDIDATE_POSTINGS_BUDGET * 5]]);
    expect(candidatePlan(["incid", "inc-42"], ["incid", "inc-42"], df)).toEqual([
      { terms: ["incid", "inc-42"], match: "all", order: "newest", limit },
      { terms: ["inc-42"], match: "any", order: "relevance", limit },
    ]);
  });

  it("needs no lookup for a query without terms", () => {
    expect(candidatePlan([], [], new Map())).toEqual([]);
  });

  it("requires every term the query used, not every synonym, and searches synonyms by rarity", () => {
    const df = new Map([["outag", 5_000], ["prod", 4_000], ["incid", 30], ["product", 9_000]]);
    expect(candidatePlan(["prod", "outag"], ["prod", "outag", "incid", "product"], df)).toEqual([
      { terms: ["prod", "outag"], match: "all", order: "newest", limit },
      { terms: ["incid"], match: "any", order: "relevance", limit },
    ]);
  });
});
