/**
 * `pnpm bench`: throughput and latency of the memory service on SQLite and on a local Postgres, through
 * the service layer and over HTTP. Each run uses fresh databases and the same synthetic data.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { DatabaseConfig } from "../src/db/config";
import type { Caller } from "../src/domain/access/caller";
import { parseRateLimitSetting } from "../src/domain/rate-limits/policy";
import { DEFAULT_AUTH_CACHE_MS } from "../src/domain/access/access-tokens";
import { createLogger } from "../src/logger";
import { startServer } from "../src/server";
import { startLocalPostgres } from "@engram/test-support/local-postgres";
import { benchmarkQueries, syntheticEvents, syntheticMemories } from "./corpus";
import { benchGateway, formatGatewayRows } from "./gateway";
import { benchReflection } from "./reflection";
import { loadFromWorker } from "./http-load";
import { benchSlowInput, formatSlowInputRows } from "./slow-input";

/** Retrieval is measured as the memory count passes each stage, to show how latency grows. */
const MEMORY_STAGES = (process.env.BENCH_MEMORY_STAGES ?? "10000,100000").split(",").map(Number);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 500);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
/** Requests in flight at once for the concurrent measurements, as several producers would send them. */
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

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

async function benchDatabase(name: string, database: DatabaseConfig): Promise<Row[]> {
  const rows: Row[] = [];
  // Rate limits stay on (their cost is part of every request) but high enough never to refuse.
  const rateLimits = parseRateLimitSetting("*.*=1000000000");
  const server = await startServer({ port: 0, host: "127.0.0.1", dataDir: tmpdir(), database, logLevel: "silent", authCacheMs: DEFAULT_AUTH_CACHE_MS, rateLimits }, createLogger("silent"));
  try {
    const { organizations, tokens, memories } = server.services;
    const org = await organizations.create({ name: "bench" });
    const { token } = await tokens.create({ orgId: org.id, name: "bench", scopes: ["memory:read", "memory:write"], environment: "production" });
    const caller: Caller = await tokens.authenticate(token, "bench");

    const events = [...syntheticEvents(EVENTS * 2)];
    const serviceStart = performance.now();
    await pool(EVENTS, CONCURRENCY, (i) => server.services.events.ingest({ ...caller, requestId: `bench-${i}` }, events[i]!, undefined));
    rows.push({ database: name, measure: `ingest ${EVENTS} events (service layer, ${CONCURRENCY} in flight)`, value: `${Math.round(EVENTS / ((performance.now() - serviceStart) / 1000))} events/s` });

    const httpMs = await loadFromWorker({
      url: `${server.url}/v1/memory/events`,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      bodies: events.slice(EVENTS).map((event) => JSON.stringify(event)),
      concurrency: CONCURRENCY,
      expectStatus: 201,
    });
    rows.push({ database: name, measure: `ingest ${EVENTS} events (HTTP, ${CONCURRENCY} concurrent clients)`, value: `${Math.round(EVENTS / (httpMs / 1000))} events/s` });

    const corpus = [...syntheticMemories(Math.max(...MEMORY_STAGES))];
    const SEQUENTIAL = 2000;
    const sequentialStart = performance.now();
    for (const memory of corpus.slice(0, SEQUENTIAL)) await memories.encode(caller, null, memory, undefined);
    rows.push({ database: name, measure: `encode ${SEQUENTIAL} memories (service layer, sequential)`, value: `${Math.round(SEQUENTIAL / ((performance.now() - sequentialStart) / 1000))} memories/s` });

    let loaded = SEQUENTIAL;
    for (const stage of MEMORY_STAGES) {
      const stageStart = performance.now();
      const count = stage - loaded;
      await pool(count, CONCURRENCY, (i) => memories.encode(caller, null, corpus[loaded + i]!, undefined));
      loaded = stage;
      rows.push({ database: name, measure: `encode up to ${stage} memories (service layer, ${CONCURRENCY} in flight)`, value: `${Math.round(count / ((performance.now() - stageStart) / 1000))} memories/s` });

      const serviceSamples: number[] = [];
      for (let i = 0; i < QUERIES; i++) {
        const query = benchmarkQueries[i % benchmarkQueries.length]!;
        serviceSamples.push(await timed(() => memories.retrieve(caller, null, { query, limit: 10, includeContext: true, contextMode: "full" })));
      }
      rows.push({ database: name, measure: `retrieve with context at ${stage} memories (service layer)`, value: latencySummary(serviceSamples) });

      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const httpSamples: number[] = [];
      for (let i = 0; i < QUERIES; i++) {
        const body = JSON.stringify({ query: benchmarkQueries[i % benchmarkQueries.length], limit: 10 });
        httpSamples.push(await timed(async () => (await fetch(`${server.url}/v1/memory/retrieve`, { method: "POST", headers, body })).arrayBuffer()));
      }
      rows.push({ database: name, measure: `retrieve at ${stage} memories (HTTP, keep-alive)`, value: latencySummary(httpSamples) });
    }

    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const httpWrites = 1000;
    const writeStart = performance.now();
    for (let i = 0; i < httpWrites; i++) {
      const body = JSON.stringify({ text: `HTTP benchmark memory ${i} about the ledger service.` });
      await (await fetch(`${server.url}/v1/memory`, { method: "POST", headers: { ...headers, "idempotency-key": `bench-${i}` }, body })).arrayBuffer();
    }
    rows.push({ database: name, measure: `encode over HTTP with Idempotency-Key (sequential)`, value: `${Math.round(httpWrites / ((performance.now() - writeStart) / 1000))} memories/s` });
  } finally {
    await server.close();
  }
  return rows;
}

/**
 * BENCH_SECTIONS picks what runs: `memory` (ingestion, encode, retrieval), `gateway` (inference latency),
 * `slow-input` (the longest event-loop hold of hostile texts), `reflection` (a run over 100,000 memories and
 * retrieval during it); all by default.
 */
const SECTIONS = new Set((process.env.BENCH_SECTIONS ?? "memory,gateway,slow-input,reflection").split(",").map((s) => s.trim()));

async function benchMemory(): Promise<void> {
  const rows: Row[] = [];
  rows.push(...(await benchDatabase("sqlite", { provider: "sqlite", file: join(mkdtempSync(join(tmpdir(), "engram-bench-")), "engram.db") })));

  const postgres = await startLocalPostgres();
  try {
    const admin = new pg.Client({ connectionString: postgres.adminUrl });
    await admin.connect();
    await admin.query("CREATE DATABASE engram_bench");
    await admin.end();
    rows.push(...(await benchDatabase("postgres", { provider: "postgres", url: postgres.adminUrl.replace(/\/postgres$/, "/engram_bench") })));
  } finally {
    postgres.stop();
  }

  console.log(`\nEngram benchmark (memory stages ${MEMORY_STAGES.join(", ")}; ${QUERIES} queries each; ${EVENTS} events; ${new Date().toISOString()})\n`);
  const width = Math.max(...rows.map((r) => r.measure.length));
  for (const row of rows) console.log(`${row.database.padEnd(9)} ${row.measure.padEnd(width)}  ${row.value}`);
}

async function main(): Promise<void> {
  if (SECTIONS.has("memory")) await benchMemory();
  if (SECTIONS.has("gateway")) console.log(`\n${formatGatewayRows(await benchGateway())}`);
  if (SECTIONS.has("slow-input")) console.log(`\n${formatSlowInputRows(await benchSlowInput())}`);
  if (SECTIONS.has("reflection")) console.log(`\n${await benchReflection()}`);
}

await main();
