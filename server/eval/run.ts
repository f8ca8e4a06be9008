/**
 * `pnpm eval`: retrieval quality of the Engram engine (the real service over an SQLite file) against a plain
 * BM25 library baseline (MiniSearch with default settings), on two labelled sets of different genres, same
 * run: an engineering organization's memory, and long multi-session conversations. `--misses` lists what
 * the engine left out; `--set organization|conversations` runs one set.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryLimits } from "@engram/contract";
import MiniSearch from "minisearch";
import { openStore } from "../src/db/store";
import { embeddingsConfigFrom } from "../src/adapters/openai-embeddings/config";
import { createServices } from "../src/services";
import { conversationSet, type LabelledSet, organizationSet } from "./labelled-set";
import { misses, report } from "./metrics";

/** The engine's semantic half joins in when ENGRAM_EMBEDDINGS_URL names an endpoint (see the README). */
function embeddingsForEval() {
  const config = embeddingsConfigFrom(process.env);
  if (!config) return null;
  console.log(`Semantic retrieval on: ${config.model} at ${config.baseUrl}`);
  return { config, onError: (error: unknown, message: string) => console.warn(message, error) };
}

/** Encodes the set through the service at each memory's own time, then asks every question at its time. */
async function engineRankings({ memories, queries }: LabelledSet): Promise<string[][]> {
  let now = new Date(0);
  const store = await openStore({ provider: "sqlite", file: join(mkdtempSync(join(tmpdir(), "engram-eval-")), "engram.db") });
  try {
    const services = createServices(store, { now: () => now, embeddings: embeddingsForEval() });
    const org = await services.organizations.create({ name: "eval" });
    const { token } = await services.tokens.create({ orgId: org.id, name: "eval", scopes: ["memory:read", "memory:write", "memory:control"], environment: "production" });
    const caller = await services.tokens.authenticate(token, "eval");

    const keyOf = new Map<string, string>();
    const reinforcements: Array<{ id: string; agent: string | null; at: Date }> = [];
    for (const memory of memories) {
      now = memory.at;
      const { text, subject, memoryKind, confidence } = memory;
      const agent = memory.agent ?? null;
      // As the route would pass it after validation: defaults filled in, nothing undefined.
      const input = { text, memoryKind, confidence: confidence ?? memoryLimits.defaultConfidence, ...(subject === undefined ? {} : { subject }) };
      const { body } = await services.memories.encode(caller, agent, input, undefined);
      keyOf.set(body.memory.id, memory.key);
      for (const at of memory.reinforcedAt ?? []) reinforcements.push({ id: body.memory.id, agent, at });
    }
    for (const { id, agent, at } of reinforcements.sort((a, b) => a.at.getTime() - b.at.getTime())) {
      now = at;
      await services.memories.reinforce(caller, agent, id, { reason: "useful" });
    }

    await services.embeddings?.idle();
    const rankings: string[][] = [];
    for (const query of queries) {
      now = query.at;
      const result = await services.memories.retrieve(caller, query.agent ?? null, { query: query.query, limit: 10, includeContext: false, contextMode: "full" });
      rankings.push(result.memories.map((memory) => keyOf.get(memory.id)!));
    }
    return rankings;
  } finally {
    await store.close();
  }
}

/** MiniSearch over the same memories, one index per agent boundary (an agent sees its own and shared memories). */
function baselineRankings({ memories, queries }: LabelledSet): string[][] {
  const indexes = new Map<string, MiniSearch>();
  const indexFor = (agent: string | undefined) => {
    const name = agent ?? "";
    let index = indexes.get(name);
    if (!index) {
      index = new MiniSearch({ fields: ["text", "subject"] });
      index.addAll(memories.filter((m) => m.agent === undefined || m.agent === agent).map((m) => ({ id: m.key, text: m.text, subject: m.subject ?? "" })));
      indexes.set(name, index);
    }
    return index;
  };
  return queries.map((query) => indexFor(query.agent).search(query.query).slice(0, 10).map((result) => String(result.id)));
}

const chosen = process.argv.includes("--set") ? process.argv[process.argv.indexOf("--set") + 1] : undefined;
const sets = [organizationSet(), conversationSet()].filter((set) => !chosen || set.name.startsWith(chosen));
if (sets.length === 0) throw new Error(`No evaluation set named ${chosen}: use organization or conversations.`);
for (const set of sets) {
  const engine = await engineRankings(set);
  console.log(`\n${report(set, engine, baselineRankings(set))}`);
  if (process.argv.includes("--misses")) console.log(`\n${misses(set, engine)}`);
}
