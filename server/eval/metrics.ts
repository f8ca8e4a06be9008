/** Recall@k and MRR of rankings against labelled questions, and the report `pnpm eval` prints. */
import { isHeldOut, type LabelledMemory, type LabelledQuery, type LabelledSet } from "./labelled-set";

export interface Metrics {
  recallAt5: number;
  recallAt10: number;
  mrr: number;
}

export function measure(queries: LabelledQuery[], rankings: string[][]): Metrics {
  let recallAt5 = 0;
  let recallAt10 = 0;
  let mrr = 0;
  queries.forEach((query, i) => {
    const ranked = rankings[i]!;
    const found = (k: number) => query.relevant.filter((key) => ranked.slice(0, k).includes(key)).length / query.relevant.length;
    recallAt5 += found(5);
    recallAt10 += found(10);
    const first = ranked.findIndex((key) => query.relevant.includes(key));
    mrr += first === -1 ? 0 : 1 / (first + 1);
  });
  const n = queries.length || 1;
  return { recallAt5: recallAt5 / n, recallAt10: recallAt10 / n, mrr: mrr / n };
}

const fixed = (n: number) => n.toFixed(3);
const signed = (n: number) => `${n >= 0 ? "+" : ""}${n.toFixed(3)}`;

/** The set's report: overall, then recall@10 per kind and half, engine against baseline, and the gain per half. */
export function report(set: LabelledSet, engine: string[][], baseline: string[][]): string {
  const { queries } = set;
  const subset = (pick: (query: LabelledQuery) => boolean) => {
    const indexes = queries.flatMap((query, i) => (pick(query) ? [i] : []));
    const chosen = indexes.map((i) => queries[i]!);
    return { count: chosen.length, engine: measure(chosen, indexes.map((i) => engine[i]!)), baseline: measure(chosen, indexes.map((i) => baseline[i]!)) };
  };
  const lines = [`${set.name}: ${set.memories.length} memories, ${queries.length} labelled questions`, ""];
  const all = subset(() => true);
  const overall = (name: string, m: Metrics) => `  ${name.padEnd(24)} recall@5 ${fixed(m.recallAt5)}   recall@10 ${fixed(m.recallAt10)}   MRR ${fixed(m.mrr)}`;
  lines.push(overall("Engram engine", all.engine), overall("MiniSearch (defaults)", all.baseline), "");
  lines.push(`  recall@10, engine vs MiniSearch    ${"tuning half".padEnd(24)} held-out half`);
  const cell = (s: ReturnType<typeof subset>) => `${fixed(s.engine.recallAt10)} vs ${fixed(s.baseline.recallAt10)} (${String(s.count).padStart(3)})`.padEnd(24);
  for (const kind of [...new Set(queries.map((q) => q.kind))]) {
    lines.push(`  ${kind.padEnd(34)} ${cell(subset((q) => q.kind === kind && !isHeldOut(q)))} ${cell(subset((q) => q.kind === kind && isHeldOut(q)))}`);
  }
  const tuning = subset((q) => !isHeldOut(q));
  const heldOut = subset((q) => isHeldOut(q));
  lines.push(`  ${"all".padEnd(34)} ${cell(tuning)} ${cell(heldOut)}`, "");
  const gain = (s: ReturnType<typeof subset>) => signed(s.engine.recallAt10 - s.baseline.recallAt10);
  lines.push(`  recall@10 gain over MiniSearch: ${gain(all)} (tuning half ${gain(tuning)}, held-out half ${gain(heldOut)})`);
  return lines.join("\n");
}

/** Every question whose answers the engine left out of its top 10, with what it returned first. */
export function misses(set: LabelledSet, engine: string[][]): string {
  const textOf = new Map(set.memories.map((memory: LabelledMemory) => [memory.key, memory.text]));
  const lines = [`Misses, ${set.name}:`];
  set.queries.forEach((query, i) => {
    const missing = query.relevant.filter((key) => !engine[i]!.includes(key));
    if (missing.length === 0) return;
    lines.push("", `[${query.kind}${isHeldOut(query) ? ", held out" : ""}] ${query.query}`);
    for (const key of missing) lines.push(`  wanted ${key}: ${textOf.get(key)}`);
    for (const key of engine[i]!.slice(0, 3)) lines.push(`  got    ${key}: ${textOf.get(key)}`);
  });
  return lines.join("\n");
}
