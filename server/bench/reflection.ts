/**
 * Reflection under load: one full run over BENCH_REFLECTION_MEMORIES memories in one scope (near-duplicates,
 * stale memories and candidates among them) with the server's own processes, and retrieve latency over HTTP
 * from a worker thread (4 clients) with no run before it, during it and with no run after it. During a run,
 * retrieve p95 must stay within TARGET_RATIO of p95 without one (before and after together).
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import pg from "pg";
import { startLocalPostgres } from "@engram/test-support/local-postgres";
import type { DatabaseConfig } from "../src/db/config";
import { BACKSTOP_CHECKPOINT_PAGES } from "../src/db/sqlite-checkpoints";
import { DEFAULT_AUTH_CACHE_MS } from "../src/domain/access/access-tokens";
import type { Caller } from "../src/domain/access/caller";
import { newMemory } from "../src/domain/memory/new-memory";
import { parseRateLimitSetting } from "../src/domain/rate-limits/policy";
import type { ReflectionScope } from "../src/domain/reflection/records";
import type { ReflectionRunner } from "../src/domain/reflection/runner";
import type { Store } from "../src/domain/store";
import { createLogger } from "../src/logger";
import { type RunningServer, startServer } from "../src/server";
import { benchmarkQueries, seededRandom, syntheticMemories } from "./corpus";
import { vacuumAnalyzeMemories } from "./vacuum";

const MEMORIES = Number(process.env.BENCH_REFLECTION_MEMORIES ?? 100_000);
const DATABASES = (process.env.BENCH_REFLECTION_DATABASES ?? "sqlite,postgres").split(",").map((name) => name.trim());
/** How long retrieval is measured with no run (after a warm-up of the same length's tenth). */
const BASELINE_MS = Number(process.env.BENCH_REFLECTION_BASELINE_MS ?? 20_000);
const CLIENTS = 4;
const SEED_BATCH = 1_000;
const DAY_MS = 24 * 60 * 60 * 1000;
export const TARGET_RATIO = 1.5;

interface Row {
  database: string;
  measure: string;
  value: string;
}

interface Planned {
  text: string;
  subject: string;
  memoryKind: "fact" | "decision" | "procedure" | "preference" | "event" | "observation";
  confidence: number;
  state: "durable" | "candidate";
  ageDays: number;
}

/**
 * The synthetic corpus with 5 % near-duplicates of recent memories, 7 % low-confidence memories old enough to
 * be stale, and 5 % candidates up to 60 days old; ages up to a year. The corpus's templates differ in a word
 * or two, so each memory also names a few words of its own (a ticket, a host): otherwise most of them would
 * be near-duplicates of one another.
 */
export function* reflectionCorpus(count: number): Generator<Planned> {
  const random = seededRandom(2026);
  const syllables = ["ka", "lo", "mi", "ru", "te", "vo", "za", "ne", "shi", "pa", "do", "gu", "fe", "bi", "yo", "ha"];
  const word = () => Array.from({ length: 3 }, () => syllables[Math.floor(random() * syllables.length)]).join("");
  const recent: Planned[] = [];
  for (const memory of syntheticMemories(count, 42)) {
    const roll = random();
    const text = `${memory.text.replace(/\.$/, "")} (ticket ${word()}-${Math.floor(random() * 1e6)}, host ${word()}${word()}).`;
    let planned: Planned = { ...memory, text, state: "durable", ageDays: random() * 365 };
    if (roll < 0.05 && recent.length > 0) {
      const original = recent[Math.floor(random() * recent.length)]!;
      const text = random() < 0.5 ? original.text : `${original.text.replace(/\.$/, "")}, as confirmed again.`;
      planned = { ...original, text, ageDays: Math.max(0, original.ageDays - random() * 30) };
    } else if (roll < 0.12) {
      planned = { ...planned, confidence: Math.round((0.2 + random() * 0.25) * 100) / 100, ageDays: 100 + random() * 265 };
    } else if (roll < 0.17) {
      planned = { ...planned, state: "candidate", ageDays: random() * 60 };
    }
    recent.push(planned);
    if (recent.length > 200) recent.shift();
    yield planned;
  }
}

/** Writes the corpus in batched multi-row inserts, as the write path does, far faster than one request each. */
async function seed(store: Store, caller: Caller, now: number): Promise<void> {
  let memories: ReturnType<typeof newMemory>[] = [];
  const flush = async () => {
    const batch = memories;
    memories = [];
    await store.writeAtomically((write) => write.insertMemories(batch.map((m) => m.memory), batch.map((m) => m.history)));
  };
  for (const planned of reflectionCorpus(MEMORIES)) {
    memories.push(
      newMemory({
        caller,
        agentSlug: null,
        text: planned.text,
        subject: planned.subject,
        memoryKind: planned.memoryKind,
        confidence: planned.confidence,
        state: planned.state,
        source: "api",
        actor: "bench",
        idempotencyKey: null,
        eventId: null,
        reason: null,
        at: new Date(now - planned.ageDays * DAY_MS),
      }),
    );
    if (memories.length === SEED_BATCH) await flush();
  }
  if (memories.length > 0) await flush();
}

/** Retrieval from a worker thread until stopped; answers [start (epoch ms), latency (ms)] per request. */
function retrieveLoad(server: RunningServer, token: string) {
  const worker = new Worker(new URL("./latency-window-worker.mjs", import.meta.url), {
    workerData: {
      url: `${server.url}/v1/memory/retrieve`,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      bodies: benchmarkQueries.map((query) => JSON.stringify({ query, limit: 10 })),
      concurrency: CLIENTS,
    },
  });
  const result = new Promise<Float64Array>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  return {
    async stop(): Promise<Array<[number, number]>> {
      worker.postMessage("stop");
      const flat = await result;
      await worker.terminate();
      const samples: Array<[number, number]> = [];
      for (let i = 0; i < flat.length; i += 2) samples.push([flat[i]!, flat[i + 1]!]);
      return samples;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Copies the log into the database and empties its file (with no run going, no reader holds it for long); answers
 * whether it did and the database's page size.
 */
function emptyLog(file: string): { emptied: boolean; pageBytes: number } {
  const db = new Database(file, { timeout: 10_000 });
  try {
    const [result] = db.pragma("wal_checkpoint(TRUNCATE)") as Array<{ busy: number }>;
    return { emptied: result?.busy === 0, pageBytes: db.pragma("page_size", { simple: true }) as number };
  } finally {
    db.close();
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function summary(latencies: number[]): { p50: number; p95: number; text: string } {
  const sorted = [...latencies].sort((a, b) => a - b);
  const p50 = percentile(sorted, 50);
  const p95 = percentile(sorted, 95);
  return { p50, p95, text: `p50 ${p50.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms (${sorted.length} requests)` };
}

/** Epoch milliseconds, comparable with the worker thread's. */
const epochNow = () => performance.timeOrigin + performance.now();

/** Runs reflection once over the scope, noting when each process finished (from the audit's progress). */
async function timedRun(runner: ReflectionRunner, store: Store, scope: ReflectionScope) {
  const started = epochNow();
  const run = await runner.start(scope, "person", "bench");
  const finishedAt = new Map<string, number>();
  let polling = true;
  const poll = (async () => {
    while (polling) {
      const audit = await store.reflectionRuns.find(scope, run.id);
      for (const name of audit?.progress.done ?? []) if (!finishedAt.has(name)) finishedAt.set(name, epochNow());
      await sleep(250);
    }
  })();
  await runner.idle();
  const ended = epochNow();
  polling = false;
  await poll;
  const audit = (await store.reflectionRuns.find(scope, run.id))!;
  let from = started;
  const processes = runner.processNames().map((name) => {
    const to = finishedAt.get(name) ?? ended;
    const window = { name, from, to, counts: audit.counts[name] };
    from = to;
    return window;
  });
  const perProcess = processes.map(({ name, from, to, counts }) => `${name} ${((to - from) / 1000).toFixed(1)} s${counts ? ` (${counts.actions} actions / ${counts.examined} examined)` : " (not run)"}`);
  return { audit, started, ended, elapsed: ended - started, processes, perProcess };
}

async function benchDatabase(name: string, database: DatabaseConfig): Promise<Row[]> {
  const rows: Row[] = [];
  const add = (measure: string, value: string) => {
    rows.push({ database: name, measure, value });
    console.log(`${name.padEnd(9)} ${measure}: ${value}`);
  };
  const rateLimits = parseRateLimitSetting("*.*=1000000000");
  const server = await startServer({ port: 0, host: "127.0.0.1", dataDir: tmpdir(), database, logLevel: "silent", authCacheMs: DEFAULT_AUTH_CACHE_MS, rateLimits }, createLogger("silent"));
  try {
    const { organizations, tokens, store } = server.services;
    const org = await organizations.create({ name: "reflection bench" });
    const { token } = await tokens.create({ orgId: org.id, name: "bench", scopes: ["memory:read", "memory:write"], environment: "production" });
    const caller = await tokens.authenticate(token, "bench");
    const scope: ReflectionScope = { orgId: org.id, environment: "production" };

    const seedStart = performance.now();
    await seed(store, caller, Date.now());
    add(`seed ${MEMORIES} memories (batched inserts)`, `${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
    // The baseline is the steady state after a load, not the minutes autovacuum takes to catch up with it.
    if (database.provider === "postgres") await vacuumAnalyzeMemories(database.url);
    // The log file emptied, so that its length after the run is the longest the run's log was.
    const log = database.provider === "sqlite" ? emptyLog(database.file) : null;

    // The server's own runner, with the processes every server runs.
    const runner = server.services.reflectionRunner;
    if (runner.processNames().length === 0) {
      add("reflection run", "NOT MEASURED: no reflection processes are registered (processes/index.ts is empty)");
      return rows;
    }

    const warmup = retrieveLoad(server, token);
    await sleep(BASELINE_MS / 10);
    await warmup.stop();
    const baselineLoad = retrieveLoad(server, token);
    await sleep(BASELINE_MS);
    const before = (await baselineLoad.stop()).map(([, ms]) => ms);
    add(`retrieve with no run, before it (HTTP, ${CLIENTS} clients)`, summary(before).text);

    const duringLoad = retrieveLoad(server, token);
    await sleep(500);
    const { audit, started, ended, elapsed, processes, perProcess } = await timedRun(runner, store, scope);
    const samples = await duringLoad.stop();
    const errors = audit.errors.map((error) => `${error.process}: ${error.message}`).join("; ");
    add(`reflection run over ${MEMORIES} memories (${audit.status}${errors ? `: ${errors}` : ""})`, `${(elapsed / 1000).toFixed(1)} s: ${perProcess.join(", ")}`);
    if (log && database.provider === "sqlite") {
      const pages = Math.ceil(statSync(`${database.file}-wal`).size / log.pageBytes);
      const note = log.emptied ? "" : ", or before it: the log could not be emptied";
      add("the log's longest length during the run", `${pages} pages (a commit copies it itself past ${BACKSTOP_CHECKPOINT_PAGES}${note})`);
    }

    // Requests that started while the run was going (the first 500 ms warmed the worker up again).
    const within = (from: number, to: number) => samples.filter(([startedAt]) => startedAt >= from && startedAt <= to).map(([, ms]) => ms);
    const during = summary(within(started, ended));
    add(`retrieve during the run (HTTP, ${CLIENTS} clients)`, during.text);
    add(
      "retrieve p95 during each process",
      processes.map(({ name, from, to }) => (within(from, to).length > 0 ? `${name} ${summary(within(from, to)).p95.toFixed(1)} ms` : `${name} -`)).join(", "),
    );
    // No run again, right after it: the machine's speed drifts over a run of many minutes, and a baseline on both
    // sides of it is what the run is compared with.
    const afterLoad = retrieveLoad(server, token);
    await sleep(BASELINE_MS);
    const after = (await afterLoad.stop()).map(([, ms]) => ms);
    add(`retrieve with no run, after it (HTTP, ${CLIENTS} clients)`, summary(after).text);
    const baseline = summary([...before, ...after]);
    const ratio = during.p95 / baseline.p95;
    add("retrieve p95 during / with no run (before and after)", `${ratio.toFixed(2)}× of ${baseline.p95.toFixed(2)} ms (target ≤ ${TARGET_RATIO}×) ${ratio <= TARGET_RATIO ? "PASS" : "FAIL"}`);

    const second = await timedRun(runner, store, scope);
    const actions = Object.values(second.audit.counts).reduce((sum, counts) => sum + counts.actions, 0);
    add("second run over the same memories", `${(second.elapsed / 1000).toFixed(1)} s, ${actions} actions: ${second.perProcess.join(", ")}`);
  } finally {
    await server.close();
  }
  return rows;
}

export async function benchReflection(): Promise<string> {
  const rows: Row[] = [];
  if (DATABASES.includes("sqlite")) {
    const dir = mkdtempSync(join(tmpdir(), "engram-bench-reflection-"));
    try {
      rows.push(...(await benchDatabase("sqlite", { provider: "sqlite", file: join(dir, "engram.db") })));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (DATABASES.includes("postgres")) {
    const postgres = await startLocalPostgres();
    try {
      const admin = new pg.Client({ connectionString: postgres.adminUrl });
      await admin.connect();
      await admin.query("CREATE DATABASE engram_bench_reflection");
      await admin.end();
      rows.push(...(await benchDatabase("postgres", { provider: "postgres", url: postgres.adminUrl.replace(/\/postgres$/, "/engram_bench_reflection") })));
    } finally {
      postgres.stop();
    }
  }
  const width = Math.max(...rows.map((row) => row.measure.length));
  const lines = rows.map((row) => `${row.database.padEnd(9)} ${row.measure.padEnd(width)}  ${row.value}`);
  return [`Reflection (${MEMORIES} memories in one scope; ${new Date().toISOString()})`, "", ...lines].join("\n");
}
