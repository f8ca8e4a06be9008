/**
 * `pnpm eval`: retrieval quality of the Engram engine (the real service over an SQLite file) against a
 * plain BM25 library baseline (MiniSearch with default settings) on the same labelled set, same run.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import MiniSearch from "minisearch";
import { openStore } from "../src/db/store";
import { embeddingsConfigFrom } from "../src/adapters/openai-embeddings/config";
import { createServices } from "../src/services";
import { type EvalQuery, evaluationSet, type QueryKind } from "./dataset";
import { hash } from "./dataset/types";

const DAY_MS = 86_400_000;

interface Metrics {
  recallAt5: number;
  recallAt10: number;
  mrr: number;
}

function measure(queries: EvalQuery[], rankings: string[][]): Metrics {
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
  const n = queries.length;
  return { recallAt5: recallAt5 / n, recallAt10: recallAt10 / n, mrr: mrr / n };
}

/** The engine's semantic half joins in when ENGRAM_EMBEDDINGS_URL names an endpoint (see the README). */
function embeddingsForEval() {
  const config = embeddingsConfigFrom(process.env);
  if (!config) return null;
  console.log(`Semantic retrieval on: ${config.model} at ${config.baseUrl}`);
  return { config, onError: (error: unknown, message: string) => console.warn(message, error) };
}

async function engineRankings(): Promise<string[][]> {
  const { memories, queries } = evaluationSet();
  const evaluatedAt = new Date("2026-11-01T12:00:00Z");
  let now = evaluatedAt;
  const store = await openStore({ provider: "sqlite", file: join(mkdtempSync(join(tmpdir(), "engram-eval-")), "engram.db") });
  try {
    const services = createServices(store, { now: () => now, embeddings: embeddingsForEval() });
    const org = await services.organizations.create({ name: "eval" });
    const { token } = await services.tokens.create({ orgId: org.id, name: "eval", scopes: ["memory:read", "memory:write", "memory:control"], environment: "production" });
    const caller = await services.tokens.authenticate(token, "eval");

    const keyOf = new Map<string, string>();
    const reinforcements: Array<{ id: string; daysAgo: number }> = [];
    for (const memory of memories) {
      now = new Date(evaluatedAt.getTime() - memory.daysAgo * DAY_MS);
      const { text, subject, memoryKind, confidence } = memory;
      const { body } = await services.memories.encode(caller, null, { text, subject, memoryKind, confidence }, undefined);
      keyOf.set(body.memory.id, memory.key);
      for (const daysAgo of memory.reinforcedDaysAgo ?? []) reinforcements.push({ id: body.memory.id, daysAgo });
    }
    for (const { id, daysAgo } of reinforcements.sort((a, b) => b.daysAgo - a.daysAgo)) {
      now = new Date(evaluatedAt.getTime() - daysAgo * DAY_MS);
      await services.memories.reinforce(caller, null, id, { reason: "useful" });
    }

    await services.embeddings?.idle();
    now = evaluatedAt;
    const rankings: string[][] = [];
    for (const query of queries) {
      const result = await services.memories.retrieve(caller, null, { query: query.query, limit: 10, includeContext: false, contextMode: "full" });
      rankings.push(result.memories.map((memory) => keyOf.get(memory.id)!));
    }
    return rankings;
  } finally {
    await store.close();
  }
}

function baselineRankings(): string[][] {
  const { memories, queries } = evaluationSet();
  const index = new MiniSearch<{ id: string; text: string; subject: string }>({ fields: ["text", "subject"] });
  index.addAll(memories.map((memory) => ({ id: memory.key, text: memory.text, subject: memory.subject ?? "" })));
  return queries.map((query) => index.search(query.query).slice(0, 10).map((result) => String(result.id)));
}

function row(name: string, metrics: Metrics): string {
  return `${name.padEnd(28)} recall@5 ${metrics.recallAt5.toFixed(3)}   recall@10 ${metrics.recallAt10.toFixed(3)}   MRR ${metrics.mrr.toFixed(3)}`;
}

const { memories, queries } = evaluationSet();
const engine = await engineRankings();
const baseline = baselineRankings();
console.log(`\nRetrieval evaluation: ${memories.length} memories, ${queries.length} labelled queries\n`);
console.log(row("Engram engine", measure(queries, engine)));
console.log(row("MiniSearch (defaults)", measure(queries, baseline)));
const kinds = [...new Set(queries.map((q) => q.kind))] as QueryKind[];
console.log("\nBy kind of query (recall@10, engine vs baseline):");
for (const kind of kinds) {
  const picked = queries.map((q, i) => [q, i] as const).filter(([q]) => q.kind === kind);
  const subset = picked.map(([q]) => q);
  const e = measure(subset, picked.map(([, i]) => engine[i]!));
  const b = measure(subset, picked.map(([, i]) => baseline[i]!));
  console.log(`  ${kind.padEnd(20)} ${String(subset.length).padStart(3)} queries   ${e.recallAt10.toFixed(3)} vs ${b.recallAt10.toFixed(3)}   (MRR ${e.mrr.toFixed(3)} vs ${b.mrr.toFixed(3)})`);
}
const gain = (picked: number[]) =>
  measure(picked.map((i) => queries[i]!), picked.map((i) => engine[i]!)).recallAt10 -
  measure(picked.map((i) => queries[i]!), picked.map((i) => baseline[i]!)).recallAt10;
const all = queries.map((_, i) => i);
// The constants chosen by measurement were chosen on the even half; the odd half is held out (see the README).
const tuning = all.filter((i) => hash(queries[i]!.query) % 2 === 0);
const heldOut = all.filter((i) => hash(queries[i]!.query) % 2 === 1);
const signed = (value: number) => `${value >= 0 ? "+" : ""}${value.toFixed(4)}`;
console.log(`\nrecall@10 gain over the baseline: ${signed(gain(all))} (target +0.15)`);
console.log(`  on the tuning half (${tuning.length} queries) ${signed(gain(tuning))}, on the held-out half (${heldOut.length}) ${signed(gain(heldOut))}`);

// `pnpm eval --misses`: every query whose answers the engine left out of its top 10, with what it returned.
if (process.argv.includes("--misses")) {
  const textOf = new Map(memories.map((memory) => [memory.key, memory.text]));
  console.log("\nMisses:");
  queries.forEach((query, i) => {
    const missing = query.relevant.filter((key) => !engine[i]!.includes(key));
    if (missing.length === 0) return;
    console.log(`\n[${query.kind}] ${query.query}`);
    for (const key of missing) console.log(`  wanted ${key}: ${textOf.get(key)}`);
    for (const key of engine[i]!.slice(0, 3)) console.log(`  got    ${key}: ${textOf.get(key)}`);
  });
}
