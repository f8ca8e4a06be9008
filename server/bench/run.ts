/**
 * `pnpm bench`: throughput and latency of the memory service on SQLite and on a local Postgres, through
 * the service layer and over HTTP. Each run uses fresh databases and the same synthetic data.
 */
import { existsSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { SemanticConfig } from "../src/adapters/openai-embeddings/config";
import type { DatabaseConfig } from "../src/db/config";
import type { Caller } from "../src/domain/access/caller";
import { parseRateLimitSetting } from "../src/domain/rate-limits/policy";
import { DEFAULT_AUTH_CACHE_MS } from "../src/domain/access/access-tokens";
import { createLogger } from "../src/logger";
import { startServer } from "../src/server";
import { startLocalPostgres } from "@engram/test-support/local-postgres";
import { EXCHANGE_ANCHORS, EXCHANGE_WINDOW_MS, NEIGHBOURS_PER_SIDE } from "@engram/retrieval";
import { benchmarkQueries, syntheticEvents, syntheticMemories } from "./corpus";
import { machineTicks, stolenSince } from "./cpu-usage";
import { benchGateway, formatGatewayRows, gatewayTargets } from "./gateway";
import { startEmbeddingsStub } from "./embeddings-stub";
import { atLeast, atMost, formatTargets, reported, type TargetRow } from "./targets";
import { benchMcp } from "./mcp";
import { benchReflection } from "./reflection";
import { latencyFromWorker } from "./http-load";
import { benchSlowInput, formatSlowInput } from "./slow-input";
import { vacuumAnalyzeMemories } from "./vacuum";

/** Retrieval is measured as the memory count passes each stage, to show how latency grows. */
const MEMORY_STAGES = (process.env.BENCH_MEMORY_STAGES ?? "10000,100000").split(",").map(Number);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 500);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
/** Requests in flight at once for the concurrent measurements, as several producers would send them. */
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
/** Memories made and encoded at a time as a stage loads (see encodeNext). */
const ENCODE_CHUNK = 10_000;
/** Unmeasured requests before each latency over HTTP: its route's code compiled, its connection open. */
const HTTP_WARMUP = 200;

/** Runs `task(i)` for i < count with at most `limit` running at once. */
async function pool(count: number, limit: number, task: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

interface Row {
  database: string;
  measure: string;
  value: string;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function latencySummary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(2)} ms, p95 ${percentile(sorted, 95).toFixed(2)} ms, p99 ${percentile(sorted, 99).toFixed(2)} ms`;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Figures the targets are checked against, by database. */
interface Figures {
  retrieveService: number[];
  retrieveHttp: number[];
  encodeHttp: number[];
  encodeInFlight: number;
  eventsHttp: number;
  rssMb: number;
  databaseMb: number;
}

const MB = 1024 * 1024;
/**
 * The process's resident memory after a full collection (`pnpm bench` runs node with `--expose-gc`), so that
 * garbage not yet collected is not counted as the server's.
 */
function rssMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / MB;
}
/** The SQLite file with its write-ahead log, in MB. */
const sqliteSizeMb = (file: string) => [file, `${file}-wal`].reduce((sum, path) => sum + (existsSync(path) ? statSync(path).size : 0), 0) / MB;

/** How many agents write the benchmark's memories. */
const BENCH_AGENTS = 8;

/**
 * The database's neighbour read around a query's best matches (see docs/retrieval.md), timed alone. On Postgres
 * retrieval makes it only for anchors older than the memories it holds; it finds the rest in process.
 */
async function exchangeReads(server: Awaited<ReturnType<typeof startServer>>, caller: Caller): Promise<number[]> {
  const scope = { orgId: caller.orgId, environment: caller.environment, agentSlug: null };
  const samples: number[] = [];
  for (const query of benchmarkQueries) {
    const { memories } = await server.services.memories.retrieve(caller, null, { query, limit: EXCHANGE_ANCHORS, includeContext: false, contextMode: "full" });
    const anchors = memories.flatMap((m) => (m.agent ? [{ id: m.id, agentSlug: m.agent, createdAt: new Date(m.createdAt) }] : []));
    for (let i = 0; i < QUERIES / benchmarkQueries.length; i++) {
      samples.push(await timed(() => server.services.store.memories.neighbours(scope, anchors, { ms: EXCHANGE_WINDOW_MS, perSide: NEIGHBOURS_PER_SIDE })));
    }
  }
  return samples;
}

async function benchDatabase(name: string, database: DatabaseConfig, stages = MEMORY_STAGES, embeddings: SemanticConfig | null = null): Promise<{ rows: Row[]; figures: Figures }> {
  const rows: Row[] = [];
  const figures: Figures = { retrieveService: [], retrieveHttp: [], encodeHttp: [], encodeInFlight: 0, eventsHttp: 0, rssMb: 0, databaseMb: 0 };
  // Rate limits stay on (their cost is part of every request) but high enough never to refuse.
  const rateLimits = parseRateLimitSetting("*.*=1000000000");
  const server = await startServer({ port: 0, host: "127.0.0.1", dataDir: tmpdir(), database, logLevel: "silent", authCacheMs: DEFAULT_AUTH_CACHE_MS, rateLimits, embeddings }, createLogger("silent"));
  try {
    const { organizations, tokens, memories } = server.services;
    const org = await organizations.create({ name: "bench" });
    const { token } = await tokens.create({ orgId: org.id, name: "bench", scopes: ["memory:read", "memory:write"], environment: "production" });
    const caller: Caller = await tokens.authenticate(token, "bench");

    const events = [...syntheticEvents(EVENTS * 2)];
    const serviceStart = performance.now();
    await pool(EVENTS, CONCURRENCY, (i) => server.services.events.ingest({ ...caller, requestId: `bench-${i}` }, events[i]!, undefined));
    rows.push({ database: name, measure: `ingest ${EVENTS} events (service layer, ${CONCURRENCY} in flight)`, value: `${Math.round(EVENTS / ((performance.now() - serviceStart) / 1000))} events/s` });

    const eventBodies = events.slice(EVENTS).map((event) => JSON.stringify(event));
    const eventHeaders = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const ingested = await latencyFromWorker({ url: `${server.url}/v1/memory/events`, headers: eventHeaders, bodies: eventBodies, expectStatus: 201 }, CONCURRENCY, eventBodies.length, 0);
    figures.eventsHttp = EVENTS / (ingested.elapsedMs / 1000);
    rows.push({ database: name, measure: `ingest ${EVENTS} events (HTTP, ${CONCURRENCY} concurrent clients)`, value: `${Math.round(figures.eventsHttp)} events/s` });

    // Written by a handful of agents, as assistants write them: every retrieval then also reads the exchanges
    // around its best matches (the whole corpus is written within minutes, so each match has neighbours).
    const agentOf = (i: number) => `bench-agent-${i % BENCH_AGENTS}`;
    // Read as it is written, so the bench process does not hold the whole corpus when its memory is measured;
    // each batch is made before its clock starts.
    const corpus = syntheticMemories(Math.max(...stages));
    const nextMemories = (count: number) => Array.from({ length: count }, () => corpus.next().value!);
    /**
     * Encodes the corpus's next `count` memories, 32 in flight, and returns the rate. They are made and encoded
     * ENCODE_CHUNK at a time, the clock running only while they are encoded: a million made at once grow the heap,
     * which the process keeps after they are collected, and the server's memory figure would count it.
     */
    const encodeNext = async (count: number, from: number) => {
      let encodingMs = 0;
      for (let done = 0; done < count; done += ENCODE_CHUNK) {
        const batch = nextMemories(Math.min(ENCODE_CHUNK, count - done));
        const started = performance.now();
        await pool(batch.length, CONCURRENCY, (i) => memories.encode(caller, agentOf(from + done + i), batch[i]!, undefined));
        encodingMs += performance.now() - started;
      }
      return count / (encodingMs / 1000);
    };

    const SEQUENTIAL = 2000;
    const first = nextMemories(SEQUENTIAL);
    const sequentialStart = performance.now();
    for (const [i, memory] of first.entries()) await memories.encode(caller, agentOf(i), memory, undefined);
    rows.push({ database: name, measure: `encode ${SEQUENTIAL} memories (service layer, sequential)`, value: `${Math.round(SEQUENTIAL / ((performance.now() - sequentialStart) / 1000))} memories/s` });

    let loaded = SEQUENTIAL;
    for (const stage of stages) {
      figures.encodeInFlight = await encodeNext(stage - loaded, loaded);
      loaded = stage;
      rows.push({ database: name, measure: `encode up to ${stage} memories (service layer, ${CONCURRENCY} in flight)`, value: `${Math.round(figures.encodeInFlight)} memories/s` });
      // Vectors are written in the background: the stage's figures hold them all.
      await server.services.embeddings?.idle();
      // Autovacuum vacuums and analyses a table within a minute or so of a bulk load (its insert threshold is
      // 1,000 rows plus 20 % of the table); the figures are for that steady state, not for the minute after
      // 100,000 inserts, when the planner has the empty table's statistics and every search also scans the GIN
      // index's pending list of fresh entries (docs/performance.md).
      if (database.provider === "postgres") await vacuumAnalyzeMemories(database.url);

      const retrieveWithContext = (query: string) => timed(() => memories.retrieve(caller, null, { query, limit: 10, includeContext: true, contextMode: "full" }));
      // A query's first retrieval counts its terms' document frequencies, which are then kept up to date rather
      // than counted again: those are reported apart, and the figures are the steady state, as over HTTP.
      const firstSamples: number[] = [];
      for (const query of benchmarkQueries) firstSamples.push(await retrieveWithContext(query));
      const serviceSamples: number[] = [];
      for (let i = 0; i < QUERIES; i++) serviceSamples.push(await retrieveWithContext(benchmarkQueries[i % benchmarkQueries.length]!));
      figures.retrieveService = serviceSamples;
      rows.push({ database: name, measure: `retrieve with context at ${stage} memories (service layer)`, value: latencySummary(serviceSamples) });
      rows.push({ database: name, measure: `  the exchange read around the best matches, alone`, value: latencySummary(await exchangeReads(server, caller)) });
      rows.push({ database: name, measure: `  each query's first retrieval at ${stage} memories (its terms counted)`, value: latencySummary(firstSamples) });

      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const bodies = benchmarkQueries.map((query) => JSON.stringify({ query, limit: 10 }));
      const httpSamples = [...(await latencyFromWorker({ url: `${server.url}/v1/memory/retrieve`, headers, bodies }, 1, QUERIES, HTTP_WARMUP)).samples];
      figures.retrieveHttp = httpSamples;
      rows.push({ database: name, measure: `retrieve at ${stage} memories (HTTP, keep-alive)`, value: latencySummary(httpSamples) });
      figures.rssMb = rssMb();
      figures.databaseMb = database.provider === "sqlite" ? sqliteSizeMb(database.file) : 0;
      rows.push({ database: name, measure: `memory (RSS) of the bench process serving ${stage} memories`, value: `${Math.round(figures.rssMb)} MB` });
    }

    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const httpWrites = 1000;
    const bodies = Array.from({ length: httpWrites }, (_, i) => JSON.stringify({ text: `HTTP benchmark memory ${i} about the ledger service.` }));
    const writes = await latencyFromWorker({ url: `${server.url}/v1/memory`, headers, bodies, idempotencyKeys: "bench", expectStatus: 201 }, 1, httpWrites, HTTP_WARMUP);
    figures.encodeHttp = [...writes.samples];
    rows.push({
      database: name,
      measure: `encode over HTTP with Idempotency-Key (sequential)`,
      value: `${Math.round(httpWrites / (writes.elapsedMs / 1000))} memories/s; ${latencySummary(figures.encodeHttp)}`,
    });
  } finally {
    await server.close();
  }
  return { rows, figures };
}

/**
 * BENCH_SECTIONS picks what runs: `memory` (ingestion, encode, retrieval), `gateway` (inference latency),
 * `slow-input` (the longest event-loop hold of hostile texts), `reflection` (a run over 100,000 memories and
 * retrieval during it), `mcp` (what a recall tool call adds to its route); all by default.
 */
const SECTIONS = new Set((process.env.BENCH_SECTIONS ?? "memory,gateway,slow-input,reflection,mcp").split(",").map((s) => s.trim()));

const sqliteFile = () => join(mkdtempSync(join(tmpdir(), "engram-bench-")), "engram.db");
const p = (samples: number[], at: number) => percentile([...samples].sort((a, b) => a - b), at);

async function benchMemory(): Promise<TargetRow[]> {
  const rows: Row[] = [];
  const sqlite = await benchDatabase("sqlite", { provider: "sqlite", file: sqliteFile() });
  rows.push(...sqlite.rows);

  const postgres = await startLocalPostgres();
  let postgresRun: Awaited<ReturnType<typeof benchDatabase>>;
  try {
    const admin = new pg.Client({ connectionString: postgres.adminUrl });
    await admin.connect();
    await admin.query("CREATE DATABASE engram_bench");
    await admin.end();
    postgresRun = await benchDatabase("postgres", { provider: "postgres", url: postgres.adminUrl.replace(/\/postgres$/, "/engram_bench") });
    rows.push(...postgresRun.rows);
  } finally {
    postgres.stop();
  }

  // The same load with semantic retrieval on: every memory also holds a 1,536-dimension vector in memory.
  const stub = await startEmbeddingsStub();
  let withVectors: Awaited<ReturnType<typeof benchDatabase>>;
  try {
    const embeddings: SemanticConfig = { baseUrl: stub.baseUrl, apiKey: "sk-bench", model: "bench-embeddings", dimensions: null, timeoutMs: 30_000, minSimilarity: 0.3 };
    withVectors = await benchDatabase("sqlite+vec", { provider: "sqlite", file: sqliteFile() }, [Math.max(...MEMORY_STAGES)], embeddings);
    rows.push(...withVectors.rows.filter((row) => /retrieve|RSS/.test(row.measure)));
  } finally {
    await stub.close();
  }

  const million = process.env.BENCH_MILLION === "1" ? await benchDatabase("sqlite", { provider: "sqlite", file: sqliteFile() }, [1_000_000]) : null;
  if (million) rows.push(...million.rows.filter((row) => /1000000/.test(row.measure)));

  console.log(`\nEngram benchmark (memory stages ${MEMORY_STAGES.join(", ")}; ${QUERIES} queries each; ${EVENTS} events; ${new Date().toISOString()})\n`);
  const width = Math.max(...rows.map((r) => r.measure.length));
  for (const row of rows) console.log(`${row.database.padEnd(10)} ${row.measure.padEnd(width)}  ${row.value}`);

  const stage = Math.max(...MEMORY_STAGES).toLocaleString("en-US");
  const perSecond = (unit: string) => (n: number) => `${Math.round(n).toLocaleString("en-US")} ${unit}/s`;
  return [
    atMost(`Postgres retrieve at ${stage}, in-process, p50`, p(postgresRun!.figures.retrieveService, 50), 5),
    atMost(`Postgres retrieve at ${stage}, in-process, p95`, p(postgresRun!.figures.retrieveService, 95), 15),
    atMost(`Postgres retrieve at ${stage}, HTTP, p50`, p(postgresRun!.figures.retrieveHttp, 50), 8),
    atMost(`SQLite retrieve at ${stage}, in-process, p50`, p(sqlite.figures.retrieveService, 50), 3.7),
    atMost("single encode over HTTP, sequential, p50 (SQLite)", p(sqlite.figures.encodeHttp, 50), 2),
    atMost("single encode over HTTP, sequential, p50 (Postgres)", p(postgresRun!.figures.encodeHttp, 50), 2),
    atLeast(`encode, ${CONCURRENCY} in flight (SQLite, service layer)`, sqlite.figures.encodeInFlight, 3000, perSecond("memories")),
    atLeast(`events over HTTP, ${CONCURRENCY} clients (SQLite)`, sqlite.figures.eventsHttp, 1500, perSecond("events")),
    reported(`server memory (RSS) at ${stage} memories, without embeddings`, `${Math.round(sqlite.figures.rssMb)} MB (bench process, SQLite)`),
    reported(`server memory (RSS) at ${stage} memories, with 1,536-d embeddings`, `${Math.round(withVectors!.figures.rssMb)} MB (bench process, SQLite)`),
    ...(million
      ? [
          atMost("SQLite retrieve at 1,000,000, in-process, p50", p(million.figures.retrieveService, 50), 10),
          reported("SQLite at 1,000,000: database size, RSS", `${Math.round(million.figures.databaseMb)} MB, ${Math.round(million.figures.rssMb)} MB`),
        ]
      : [reported("SQLite at 1,000,000 (opt-in: BENCH_MILLION=1)", "not run")]),
  ];
}

async function main(): Promise<void> {
  const targets: TargetRow[] = [];
  // How much CPU time the hypervisor took from this machine during each section: on a shared machine the
  // figures that are CPU work move with it, so each run says how contended its hour was.
  const stolen: string[] = [];
  const section = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const since = machineTicks();
    const result = await run();
    const share = stolenSince(since);
    if (share !== null) stolen.push(`${name} ${(share * 100).toFixed(1)} %`);
    return result;
  };
  if (SECTIONS.has("memory")) targets.push(...(await section("memory", benchMemory)));
  if (SECTIONS.has("gateway")) {
    const gateway = await section("gateway", benchGateway);
    console.log(`\n${formatGatewayRows(gateway.rows)}`);
    targets.push(...gatewayTargets(gateway));
  }
  if (SECTIONS.has("slow-input")) console.log(`\n${formatSlowInput(await benchSlowInput())}`);
  if (SECTIONS.has("reflection")) console.log(`\n${await benchReflection()}`);
  if (SECTIONS.has("mcp")) {
    const mcp = await section("mcp", benchMcp);
    console.log(`\n${mcp.text}`);
    targets.push(...mcp.targets);
  }
  if (stolen.length > 0) targets.push(reported("CPU time stolen by the hypervisor, by section", stolen.join(", ")));
  if (targets.length > 0) console.log(`\n${formatTargets(targets)}`);
}

await main();
