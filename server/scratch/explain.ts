import { analyzeQuery, analyzeText, rankLexically, scoreMemory } from "@engram/retrieval";
import { evaluationSet } from "../eval/dataset";
const { memories, queries } = evaluationSet();
const docs = memories.map((m) => ({ id: m.key, terms: analyzeText(`${m.subject ?? ""} ${m.text}`), subjectTerms: m.subject ? analyzeText(m.subject) : [] }));
const df = new Map<string, number>();
for (const d of docs) for (const t of new Set(d.terms)) df.set(t, (df.get(t) ?? 0) + 1);
const stats = { documents: docs.length, averageLength: docs.reduce((s, d) => s + d.terms.length, 0) / docs.length, documentFrequency: df };
const byKey = new Map(memories.map((m) => [m.key, m]));
const now = new Date("2026-11-01T12:00:00Z");
for (const text of process.argv.slice(2)) {
  const q = queries.find((x) => x.query === text) ?? { query: text, relevant: [] as string[] };
  const concepts = analyzeQuery(q.query);
  const f = (ts: readonly string[]) => ts.map((t) => `${t}(${df.get(t) ?? 0})`).join(",");
  console.log("\nQ:", q.query, "\n concepts:", concepts.map((c) => `[${f(c.forms)}${c.parts.length ? " parts " + f(c.parts) : ""}${c.synonyms.length ? " ~ " + f(c.synonyms) : ""}]`).join(" "));
  const ranked = rankLexically(concepts, docs, stats).map((m) => {
    const mem = byKey.get(m.id)!;
    const first = new Date(now.getTime() - mem.daysAgo * 86400000);
    const uses = [first, ...(mem.reinforcedDaysAgo ?? []).map((d) => new Date(now.getTime() - d * 86400000))];
    const s = scoreMemory({ relevance: m.score, confidence: mem.confidence, recentUses: uses, totalUses: uses.length, firstUse: first }, now);
    return { id: m.id, bm25: m.score, score: s.score, recall: s.recall };
  }).sort((a, b) => b.score - a.score);
  ranked.slice(0, 12).forEach((r, i) => console.log(`  #${i + 1} ${r.id} bm25 ${r.bm25.toFixed(2)} score ${r.score.toFixed(2)} P ${r.recall.toFixed(2)} ${q.relevant.includes(r.id) ? "REL" : ""} | ${byKey.get(r.id)!.text.slice(0, 90)}`));
  for (const k of q.relevant) {
    const i = ranked.findIndex((r) => r.id === k);
    const r = ranked[i];
    const d = docs.find((x) => x.id === k)!;
    console.log(`  REL ${k} rank ${i + 1} ${r ? `bm25 ${r.bm25.toFixed(2)} score ${r.score.toFixed(2)} P ${r.recall.toFixed(2)}` : "no match"} terms: ${d.terms.join(" ")}`);
  }
}
