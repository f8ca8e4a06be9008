import { analyzeQuery, analyzeText, analyzeWords, rankLexically, scoreMemory } from "@engram/retrieval";
import { evaluationSet } from "../eval/dataset";
const { memories, queries } = evaluationSet();
const docs = memories.map((m) => ({ id: m.key, terms: analyzeText(`${m.subject ?? ""} ${m.text}`), subjectTerms: m.subject ? analyzeText(m.subject) : [], ...(process.env.WL ? { length: analyzeWords(`${m.subject ?? ""} ${m.text}`).length } : {}) }));
const df = new Map<string, number>();
for (const d of docs) for (const t of new Set(d.terms)) df.set(t, (df.get(t) ?? 0) + 1);
const N = docs.length;
const stats = { documents: N, averageLength: docs.reduce((s, d) => s + (d.length ?? d.terms.length), 0) / N, documentFrequency: df };
const byKey = new Map(memories.map((m) => [m.key, m]));
const idf = (t: string) => Math.log(1 + (N - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
const vec = new Map(docs.map((d) => {
  const v = new Map<string, number>();
  for (const t of new Set(d.terms)) v.set(t, idf(t));
  const n = Math.sqrt([...v.values()].reduce((s, x) => s + x * x, 0));
  for (const [t, x] of v) v.set(t, x / n);
  return [d.id, v];
}));
const sim = (a: string, b: string) => { let s = 0; const va = vec.get(a)!, vb = vec.get(b)!; for (const [t, x] of va) s += x * (vb.get(t) ?? 0); return s; };
const now = new Date("2026-11-01T12:00:00Z");
const base = queries.map((q) => rankLexically(analyzeQuery(q.query), docs, stats).map((m) => {
  const mem = byKey.get(m.id)!;
  const first = new Date(now.getTime() - mem.daysAgo * 86400000);
  const uses = [first, ...(mem.reinforcedDaysAgo ?? []).map((d) => new Date(now.getTime() - d * 86400000))];
  return { id: m.id, score: scoreMemory({ relevance: m.score, confidence: mem.confidence, recentUses: uses, totalUses: uses.length, firstUse: first }, now).score };
}).sort((a, b) => b.score - a.score).map((r) => r.id));
function measure(rankings: string[][], kind?: string) {
  let r10 = 0, mrr = 0, n = 0;
  queries.forEach((q, i) => { if (kind && q.kind !== kind) return; n++; const r = rankings[i]!.slice(0, 10); r10 += q.relevant.filter((k) => r.includes(k)).length / q.relevant.length; const f = r.findIndex((k) => q.relevant.includes(k)); mrr += f < 0 ? 0 : 1 / (f + 1); });
  return `${(r10 / n).toFixed(3)} mrr ${(mrr / n).toFixed(3)}`;
}
console.log("base", measure(base), "changed", measure(base, "changed-over-time"));
for (const K of [1, 2, 3]) for (const theta of [0.15, 0.2, 0.25, 0.3, 0.35, 0.4]) for (const before of [false, true]) {
  let fired = 0;
  const out = base.map((ranking) => {
    const result = [...ranking];
    for (const p of ranking.slice(0, K)) {
      const pm = byKey.get(p)!;
      let best: string | null = null, bestSim = theta;
      for (const d of docs) { if (byKey.get(d.id)!.daysAgo >= pm.daysAgo) continue; const s = sim(p, d.id); if (s > bestSim) { bestSim = s; best = d.id; } }
      if (!best) continue;
      const at = result.indexOf(best), pi = result.indexOf(p);
      if (at >= 0 && at < pi) continue;
      fired++;
      if (at >= 0) result.splice(at, 1);
      result.splice(result.indexOf(p) + (before ? 0 : 1), 0, best);
    }
    return result;
  });
  console.log(`K ${K} theta ${theta} ${before ? "before" : "after "} fired ${fired}: all ${measure(out)} changed ${measure(out, "changed-over-time")}`);
}
