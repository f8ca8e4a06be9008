import { describe, expect, it } from "vitest";
import { analyzeText, analyzeWords, foldText, LONGEST_TERM, MAX_TERM_CHARACTERS_PER_TEXT, MAX_TERMS_PER_TEXT, queryTerms } from "../src/analyze";

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
    expect(analyzeText("retry_backoff_ms")).toEqual(["retry-backoff-ms", "retrybackoffm", "retri", "backoff", "ms"]);
    expect(analyzeText("paymentService")).toEqual(["paymentservic", "payment", "servic"]);
    expect(analyzeText("HTTPServer")).toEqual(["httpserver", "http", "server"]);
  });

  it("stems a name written in camelCase like the same word in lower case", () => {
    expect(queryTerms("ClickHouse")[0]).toBe(queryTerms("clickhouse")[0]);
    expect(queryTerms("PagerDuty")[0]).toBe(queryTerms("pagerduty")[0]);
    expect(queryTerms("pager-duty")).toContain(queryTerms("pagerduty")[0]);
  });

  it("reads a word with at most a leading capital, or a number, as one piece and anything else as an identifier", () => {
    expect(analyzeText("Deploys 2077 Kept")).toEqual(["deploy", "2077", "keep"]);
    expect(analyzeText("iPhone x86 ABCs")).toEqual(["iphon", "phone", "x86", "86", "abc"]);
    // Scripts without case, and letters with case after one without: one piece, as no boundary splits them.
    expect(analyzeText("ﷺ 東京タワー 中A")).toEqual(["صلى", "الله", "عليه", "وسلم", "東京タワー", "中a"]);
  });

  it("reads an acronym's plural as the acronym", () => {
    expect(analyzeText("RFCs, APIs and PRs")).toEqual(["rfc", "api", "pr"]);
    expect(analyzeText("APIsClient")).toEqual(["apiscli", "api", "client"]);
  });

  it("also indexes a phrasal verb run together, as engineers write it", () => {
    expect(analyzeText("We rolled back, then got locked out. Logging in failed.")).toEqual(
      expect.arrayContaining(["rollback", "lockout", "login"]),
    );
    expect(queryTerms("roll back")).toContain(queryTerms("rollback")[0]);
    expect(queryTerms("set up")).toContain(queryTerms("setup")[0]);
    // Only words side by side: punctuation between them breaks the phrase.
    expect(analyzeText("We rolled. Back to work")).not.toContain("rollback");
  });

  it("joins irregular verb forms to their verb, but not forms that are usually other words", () => {
    expect(queryTerms("kept wrote written built ran")).toEqual(queryTerms("keep write build run"));
    expect(queryTerms("left bound")).toEqual(["left", "bound"]);
    expect(analyzeText("having were")).toEqual([]);
  });

  it("keeps each word's exact forms apart from an identifier's parts", () => {
    expect(analyzeWords("INC-42 payments rolled back")).toEqual([
      { forms: ["inc-42", "inc42"], parts: ["inc", "42"] },
      { forms: ["payment"], parts: [] },
      { forms: ["roll", "rollback"], parts: [] },
      { forms: ["back"], parts: [] },
    ]);
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

describe("text analysis of hostile text", () => {
  it("cuts a very long word at LONGEST_TERM characters, the same in texts and queries, and analyses memory-sized runs quickly", () => {
    const cjk = Array.from({ length: 8000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20000))).join("");
    const texts = [cjk, "a".repeat(8000), "ab".repeat(4000)];
    const started = performance.now();
    const terms = texts.map((text) => analyzeText(text));
    expect(performance.now() - started).toBeLessThan(300);
    expect(terms).toEqual(texts.map((text) => [text.slice(0, LONGEST_TERM)]));
    expect(queryTerms(cjk)).toEqual(terms[0]);
    // Hangul decomposes into three letters a syllable: 8,000 syllables were one term of 23,714 characters.
    const hangul = Array.from({ length: 8000 }, (_, i) => String.fromCharCode(0xac00 + ((i * 7919) % 11000))).join("");
    expect(analyzeText(hangul)).toEqual([hangul.normalize("NFKD").slice(0, LONGEST_TERM)]);
  });

  it("never cuts a term between the halves of a surrogate pair", () => {
    // 127 letters, then letters outside the Basic Multilingual Plane (CJK Extension B), two code units each.
    const word = `${"a".repeat(LONGEST_TERM - 1)}${"\u{20000}".repeat(10)}`;
    const [term] = analyzeText(word);
    expect(term).toBe("a".repeat(LONGEST_TERM - 1));
    expect(analyzeText(`${"a".repeat(LONGEST_TERM - 2)}${"\u{20000}".repeat(10)}`)).toEqual([`${"a".repeat(LONGEST_TERM - 2)}\u{20000}`]);
  });

  it("cuts an identifier's whole form but keeps its parts", () => {
    const path = `docs/${"runbook-".repeat(20)}ledger.md`;
    const [word] = analyzeWords(path);
    expect(word!.forms.every((form) => form.length <= LONGEST_TERM)).toBe(true);
    expect(word!.forms[0]).toBe(path.slice(0, LONGEST_TERM));
    expect(word!.parts).toEqual(["doc", ...Array(20).fill("runbook"), "ledger", "md"]);
  });

  it("strips a long run of combining marks quickly", () => {
    const marked = `ledger${Array.from({ length: 64_000 }, (_, i) => String.fromCharCode(0x0300 + (i % 0x30))).join("")}`;
    const started = performance.now();
    expect(analyzeText(marked)).toEqual(["ledger"]);
    expect(foldText(marked)).toBe("ledger");
    expect(performance.now() - started).toBeLessThan(300);
  });

  it("yields at most MAX_TERMS_PER_TEXT terms and MAX_TERM_CHARACTERS_PER_TEXT characters, however far compatibility characters expand", () => {
    // ﷺ decomposes into 18 letters, four words: 8,000 of them analysed to 24,000 terms before the bounds, and
    // to 4,096 terms of 24,573 characters with the bound on terms alone.
    const expanding = "\ufdfa".repeat(8_000);
    const terms = analyzeText(expanding);
    expect(terms.join(" ").length).toBeLessThanOrEqual(MAX_TERM_CHARACTERS_PER_TEXT);
    expect(terms.join(" ").length).toBeGreaterThan(MAX_TERM_CHARACTERS_PER_TEXT - 10);
    // The characters run together without spaces, so the last word of one meets the first of the next.
    expect(terms.slice(0, 5)).toEqual(["صلى", "الله", "عليه", "وسلمصلى", "الله"]);
    expect(new Set(terms)).toEqual(new Set(["صلى", "الله", "عليه", "وسلمصلى"]));
    expect(analyzeWords(expanding).flatMap((word) => [...word.forms, ...word.parts])).toEqual(terms);
    expect(analyzeText("\ufdfa ledger")).toEqual(["صلى", "الله", "عليه", "وسلم", "ledger"]);
    // Two-letter terms reach the bound on terms first.
    const pairs = Array.from({ length: 2_700 }, (_, i) => `${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + (Math.floor(i / 26) % 26))}${i % 10}`).join(" ");
    expect(analyzeText(pairs.repeat(2)).length).toBe(MAX_TERMS_PER_TEXT);
    // A text within the memory limit without such characters stays whole under both bounds.
    const camel = "aB".repeat(4_000);
    expect(analyzeText(camel).length).toBeLessThanOrEqual(MAX_TERMS_PER_TEXT);
    expect(analyzeText(camel).at(-1)).toBe("ba");
    const prose = "The ledger consumer restarts after a failed deploy and pages on-call. ".repeat(120).slice(0, 8_000);
    const analysed = analyzeText(prose);
    expect(analysed.length).toBeLessThan(MAX_TERMS_PER_TEXT);
    expect(analysed.join(" ").length).toBeLessThan(MAX_TERM_CHARACTERS_PER_TEXT);
    expect(analysed.at(-1)).toBe(analyzeText(prose.slice(-40)).at(-1));
  });
});
