import { describe, expect, it } from "vitest";
import { candidateTerms } from "../src/domain/retrieval";

describe("candidate terms", () => {
  const df = new Map([["inc-42", 3], ["deploi", 1500], ["api", 9000], ["ledger", 40]]);

  it("searches with the rarest terms while their postings fit the budget", () => {
    expect(candidateTerms(["api", "deploi", "inc-42", "ledger"], df)).toEqual(["inc-42", "ledger", "deploi"]);
  });

  it("always keeps the rarest term, however common", () => {
    expect(candidateTerms(["api"], df)).toEqual(["api"]);
  });

  it("adds terms the index has not seen, without letting them stand in for a real one", () => {
    expect(candidateTerms(["api", "brand-new"], df)).toEqual(["brand-new", "api"]);
  });
});
