import { describe, expect, it } from "vitest";
import { analyzeText, foldText, queryTerms } from "../src/analyze";

describe("text analysis", () => {
  it("folds case and diacritics", () => {
    expect(foldText("Café RÉSUMÉ")).toBe("cafe resume");
  });

  it("splits on punctuation and drops stop words", () => {
    expect(analyzeText("How do we deploy the payments-service?")).toEqual(["deploy", "payments", "service"]);
  });

  it("keeps numbers and non-Latin words", () => {
    expect(analyzeText("INC-42 in Zürich, 東京")).toEqual(["inc", "42", "zurich", "東京"]);
  });

  it("makes distinct query terms", () => {
    expect(queryTerms("deploy deploy DEPLOY staging")).toEqual(["deploy", "staging"]);
  });
});
