import { analyzeQuery, analyzeText, rankLexically, scoreMemory } from "@engram/retrieval";
import MiniSearch from "minisearch";
import { evaluationSet } from "../eval/dataset";
import { hash } from "../eval/dataset/types";
const { memories, queries } = evaluationSet();
const docs = memories.map((m) => ({ id: m.key, terms: analyzeText(`${m.subject ?? ""} ${m.text}`), subjectTerms: m.subject ? analyzeText(m.subject) : [] }));
const df = new Map<string, number>();
for (const d of docs) for (const t of new Set(d.terms)) df.set(t, (df.get(t) ?? 0) + 1);
const N = docs.length;
const stats = { documents: N, averageLength: docs.reduce((s, d) => s + d.terms.length, 0) / N, documentFrequency: df };
const byKey = new Map(memories.map((m) => [m.key, m]));
const now = new Date("2026-11-01T12:00:00Z");
const rankings = queries.map((q) => rankLexically(analyzeQuery(q.query), docs, stats).map((m) => {
  const mem = byKey.get(m.id)!;
  const first = new Date(now.getTime() - mem.daysAgo * 86400000);
  const uses = [first, ...(mem.reinforcedDaysAgo ?? []).map((d) => new Date(now.getTime() - d * 86400000))];
  return { id: m.id, score: scoreMemory({ relevance: m.score, confidence: mem.confidence, recentUses: uses, totalUses: uses.length, firstUse: first }, now).score };
}).sort((a, b) => b.score - a.score).map((r) => r.id));
if (process.env.SUCC) {
  const [K, theta, mode] = process.env.SUCC.split(",");
  const idf = (t: string) => Math.log(1 + (N - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
  const vec = new Map(docs.map((d) => {
    const v = new Map<string, number>();
    for (const t of new Set(d.terms)) v.set(t, idf(t));
    const n = Math.sqrt([...v.values()].reduce((s, x) => s + x * x, 0));
    for (const [t, x] of v) v.set(t, x / n);
    return [d.id, v];
  }));
  const sim = (a: string, b: string) => { let s = 0; const va = vec.get(a)!, vb = vec.get(b)!; for (const [t, x] of va) s += x * (vb.get(t) ?? 0); return s; };
  rankings.forEach((ranking, qi) => {
    const result = [...ranking];
    for (const p of ranking.slice(0, Number(K))) {
      const pm = byKey.get(p)!;
      let best: string | null = null, bestSim = Number(theta);
      for (const d of docs) { if (byKey.get(d.id)!.daysAgo >= pm.daysAgo) continue; const s = sim(p, d.id); if (s > bestSim) { bestSim = s; best = d.id; } }
      if (!best) continue;
      const at = result.indexOf(best), pi = result.indexOf(p);
      if (at >= 0 && at < pi) continue;
      if (at >= 0) result.splice(at, 1);
      result.splice(result.indexOf(p) + (mode === "before" ? 0 : 1), 0, best);
    }
    rankings[qi] = result;
  });
}
if (process.env.DUP) {
  const theta = Number(process.env.DUP);
  const sets = new Map(docs.map((d) => [d.id, new Set(d.terms)]));
  const jaccard = (a: Set<string>, b: Set<string>) => { let i = 0; for (const t of a) if (b.has(t)) i++; return i / (a.size + b.size - i); };
  rankings.forEach((ranking, qi) => {
    const kept: string[] = [], deferred: string[] = [];
    for (const id of ranking.slice(0, 50)) (kept.some((k) => jaccard(sets.get(k)!, sets.get(id)!) >= theta) ? deferred : kept).push(id);
    rankings[qi] = [...kept, ...deferred, ...ranking.slice(50)];
  });
}
const index = new MiniSearch<{ id: string; text: string; subject: string }>({ fields: ["text", "subject"] });
index.addAll(memories.map((m) => ({ id: m.key, text: m.text, subject: m.subject ?? "" })));
const baseline = queries.map((q) => index.search(q.query).slice(0, 10).map((r) => String(r.id)));
function measure(pick: (i: number) => boolean, rankings_ = rankings) {
  const rankings = rankings_;
  let r10 = 0, mrr = 0, n = 0;
  queries.forEach((q, i) => { if (!pick(i)) return; n++; const r = rankings[i]!.slice(0, 10); r10 += q.relevant.filter((k) => r.includes(k)).length / q.relevant.length; const f = r.findIndex((k) => q.relevant.includes(k)); mrr += f < 0 ? 0 : 1 / (f + 1); });
  return `${(r10 / n).toFixed(3)}/${(mrr / n).toFixed(3)}`;
}
const dev = (i: number) => hash(queries[i]!.query) % 2 === 0;
console.log(`baseline all ${measure(() => true, baseline)} dev ${measure(dev, baseline)} held-out ${measure((i) => !dev(i), baseline)}`);
console.log(`all ${measure(() => true)}  dev ${measure(dev)}  held-out ${measure((i) => !dev(i))}  changed ${measure((i) => queries[i]!.kind === "changed-over-time")}`);
if (process.env.MISSES) queries.forEach((q, i) => {
  const r = rankings[i]!;
  const missing = q.relevant.filter((k) => !r.slice(0, 10).includes(k));
  if (!missing.length) return;
  console.log(`\n[${q.kind}${dev(i) ? "" : " HELD"}] ${q.query}`);
  for (const k of missing) console.log(`   MISSING ${k} (rank ${r.indexOf(k) + 1}): ${byKey.get(k)!.text.slice(0, 150)}`);
  for (const k of r.slice(0, 2)) console.log(`   got ${k}: ${byKey.get(k)!.text.slice(0, 100)}`);
});
