import { describe, expect, it } from "vitest";
import { analyzeText, queryTerms } from "../src/analyze";
import { countTerms, rankLexically } from "../src/lexical";
import { analyzeQuery } from "../src/query";

const analysed = (id: string, text: string, subject: string | null) => ({
  id,
  terms: countTerms(analyzeText(`${subject ?? ""} ${text}`)),
  subjectTerms: countTerms(subject ? analyzeText(subject) : []),
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

  it("scores alike whether the query or the document holds more terms, and when ranked again", () => {
    const stats = { documents: 4, averageLength: 6, documentFrequency: new Map([["payment", 2], ["releas", 2], ["deploy", 1]]) };
    const short = rankLexically(queryTerms("payments deploy release"), docs, stats);
    // Sixty words no document holds make the query longer than any document: a different walk, the same scores.
    const unheard = Array.from({ length: 60 }, (_, i) => `zz${i.toString(36)}q`).join(" ");
    expect(rankLexically(queryTerms(`payments deploy release ${unheard}`), docs, stats)).toEqual(short);
    expect(rankLexically(queryTerms("payments deploy release"), docs, stats)).toEqual(short);
    expect(short.map((m) => m.id)).toEqual(["a", "d", "b"]);
  });

  it("gives a term BM25's weight, a subject occurrence counting twice", () => {
    const doc = analysed("a", "Payments deploy with make release.", "payments");
    const stats = { documents: 100, averageLength: 5, documentFrequency: new Map([["payment", 10]]) };
    // "payment" twice in the indexed text (subject and text), once more for the subject; the length likewise.
    const [tf, length] = [doc.terms.counts.get("payment")! + doc.subjectTerms.counts.get("payment")!, doc.terms.length + doc.subjectTerms.length];
    const idf = Math.log(1 + (100 - 10 + 0.5) / (10 + 0.5));
    const expected = (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.3 + (0.3 * length) / 5));
    expect(tf).toBe(3);
    expect(rankLexically(queryTerms("payments"), [doc], stats)[0]!.score).toBeCloseTo(expected, 12);
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

describe("query concepts", () => {
  const conceptOf = (query: string, form: string) => analyzeQuery(query).find((concept) => concept.forms.includes(form));

  it("gives each word its exact forms, an identifier its parts, and a thesaurus word its synonyms", () => {
    expect(analyzeQuery("payments-api outage")).toEqual([
      { forms: ["payments-api", "paymentsapi"], parts: ["payment", "api"], synonyms: [] },
      { forms: ["outag"], parts: [], synonyms: expect.arrayContaining([["incid"], ["downtim"]]) },
    ]);
  });

  it("lets abbreviations and words no stemmer joins meet: k8s and kubernetes, deploy and release", () => {
    expect(conceptOf("k8s", "k8s")!.synonyms).toContainEqual(queryTerms("kubernetes"));
    expect(conceptOf("deploy", "deploy")!.synonyms).toContainEqual(queryTerms("release"));
  });

  it("expands abbreviations to phrases and phrases to abbreviations", () => {
    expect(conceptOf("who is the PM?", "pm")!.synonyms).toContainEqual(queryTerms("product manager"));
    // A phrase's synonyms go to its last word.
    expect(conceptOf("ask the product manager", queryTerms("manager")[0]!)!.synonyms).toContainEqual(["pm"]);
    expect(conceptOf("open a pull request", "request")!.synonyms).toContainEqual(["pr"]);
  });

  it("leaves a synonym the query used itself to that word, and drops repeated words", () => {
    expect(conceptOf("incident outage", "outag")!.synonyms).not.toContainEqual(["incid"]);
    expect(conceptOf("PM product manager", "pm")!.synonyms).not.toContainEqual(queryTerms("product manager"));
    expect(analyzeQuery("deploy deploys DEPLOY")).toHaveLength(1);
    expect(analyzeQuery("the of and")).toEqual([]);
  });
});

describe("ranking by concepts", () => {
  it("finds a memory in other words, but ranks the exact wording first", () => {
    const docs = [analysed("exact", "The prod outage lasted an hour.", null), analysed("synonym", "The production incident lasted an hour.", null), analysed("other", "Lunch is at noon.", null)];
    const ranked = rankLexically(analyzeQuery("prod outage"), docs);
    expect(ranked.map((m) => m.id)).toEqual(["exact", "synonym"]);
    expect(rankLexically(queryTerms("prod outage"), docs).map((m) => m.id)).toEqual(["exact"]);
  });

  it("counts a word once however many of its forms a memory holds", () => {
    // sso-bridge is indexed as sso-bridge, ssobridg, sso and bridg: all four must not outweigh "owner".
    const docs = [
      analysed("owner", "Sofia owns sso-bridge; she is its owner.", null),
      analysed("mention", "sso-bridge cost report: sso-bridge cost went up, sso-bridge again.", null),
      ...Array.from({ length: 20 }, (_, i) => analysed(`filler-${i}`, `Owner of service ${i} is team ${i}; sso-bridge unrelated ${i}.`, null)),
    ];
    expect(rankLexically(analyzeQuery("SSOBridge owner"), docs)[0]!.id).toBe("owner");
  });

  it("scores an identifier's parts below the identifier itself", () => {
    const docs = [analysed("whole", "payments-api was deployed.", null), analysed("parts", "The api of payments was deployed.", null), analysed("none", "Lunch.", null)];
    const [whole, parts] = rankLexically(analyzeQuery("payments-api"), docs);
    expect([whole!.id, parts!.id]).toEqual(["whole", "parts"]);
    expect(parts!.score).toBeLessThan(whole!.score);
  });

  it("matches a synonym of several words only when the memory holds them all", () => {
    const docs = [analysed("phrase", "Emily is the product manager for billing.", null), analysed("half", "The billing product ships monthly.", null)];
    expect(rankLexically(analyzeQuery("billing PM"), docs).map((m) => m.id)).toEqual(["phrase", "half"]);
    const [phrase, half] = rankLexically(analyzeQuery("PM"), docs).map((m) => m.id);
    expect([phrase, half]).toEqual(["phrase", undefined]);
  });

  it("matches a synonym at its lower weight, never adding synonyms up", () => {
    // Summed, four synonyms at half weight would beat the one word the query used.
    const docs = [analysed("synonyms", "Sev2 outage, downtime and disruption last night.", null), analysed("word", "Incident last night.", null)];
    expect(rankLexically(analyzeQuery("incident"), docs).map((m) => m.id)).toEqual(["word", "synonyms"]);
  });
});
