import { describe, expect, it } from "vitest";
import { analyzeText, foldText, queryTerms } from "../src/analyze";

describe("text analysis", () => {
  it("folds case and diacritics", () => {
    expect(foldText("Café RÉSUMÉ")).toBe("cafe resume");
    expect(analyzeText("Zürich CAFÉ")).toEqual(["zurich", "cafe"]);
  });

  it("drops stop words and stems plain words", () => {
    expect(analyzeText("How do we deploy the payments?")).toEqual(["deploy", "payment"]);
    // Stems are not always words, but every form of one meets the others.
    expect(new Set(analyzeText("deploy deploys deployed deploying deployment"))).toEqual(new Set(["deploy"]));
  });

  it("keeps ticket ids, service names and versions whole and in parts", () => {
    expect(analyzeText("INC-42")).toEqual(["inc-42", "inc42", "inc", "42"]);
    expect(analyzeText("payments-api")).toEqual(["payments-api", "paymentsapi", "payment", "api"]);
    expect(analyzeText("v1.4.0")).toEqual(["v1.4.0", "1.4.0"]);
    expect(analyzeText("INC2077")).toEqual(["inc2077", "inc", "2077"]);
  });

  it("splits paths, snake_case and camelCase", () => {
    expect(analyzeText("docs/runbooks/payments.md")).toEqual(["docs/runbooks/payments.md", "doc", "runbook", "payment", "md"]);
    expect(analyzeText("retry_backoff_ms")).toEqual(["retry-backoff-ms", "retrybackoffms", "retri", "backoff", "ms"]);
    expect(analyzeText("paymentService")).toEqual(["paymentservice", "payment", "servic"]);
    expect(analyzeText("HTTPServer")).toEqual(["httpserver", "http", "server"]);
  });

  it("lets a query meet a document on identifiers however they are written", () => {
    const doc = new Set(analyzeText("Incident INC-42 hit payments-api after deploying v2.3.1"));
    for (const query of ["inc-42", "INC 42", "inc42", "payments api", "PaymentsAPI", "payments_api", "payment api deploys", "2.3.1"]) {
      for (const term of queryTerms(query)) expect(doc.has(term), `${query}: ${term}`).toBe(true);
    }
  });

  it("keeps numbers and non-Latin words", () => {
    expect(analyzeText("port 8080 東京")).toEqual(["port", "8080", "東京"]);
  });

  it("makes distinct query terms", () => {
    expect(queryTerms("deploy deploys DEPLOY staging")).toEqual(["deploy", "stage"]);
  });
});
