/**
 * The inference gateway's added latency: the same chat request sent straight to a local OpenAI-compatible
 * model, through Engram (without and with memory injection at 10,000 memories) and through Portkey's
 * open-source gateway (`@portkey-ai/gateway`, in its own process), at concurrency 1 and 16. The model
 * runs in its own process and the load comes from a worker thread; measurements alternate in rounds so
 * that drift on a shared machine touches every target alike.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { createRequire } from "node:module";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_MODEL_ID, memoryScopes } from "@engram/contract";
import { parseRateLimitSetting } from "../src/domain/rate-limits/policy";
import { DEFAULT_AUTH_CACHE_MS } from "../src/domain/access/access-tokens";
import { createLogger } from "../src/logger";
import { startServer } from "../src/server";
import { startBareProxy } from "./bare-proxy";
import { benchmarkQueries, syntheticMemories } from "./corpus";
import { cpuUsageAvailable, processCpuMs, treeCpuMs } from "./cpu-usage";
import { latencyFromWorker } from "./http-load";
import { atLeast, atMost, reported, type TargetRow } from "./targets";

const MEMORIES = Number(process.env.BENCH_GATEWAY_MEMORIES ?? 10_000);
/** Measured requests per target and concurrency, split over the rounds. */
const REQUESTS = Number(process.env.BENCH_GATEWAY_REQUESTS ?? 3_000);
const ROUNDS = Number(process.env.BENCH_GATEWAY_ROUNDS ?? 3);
const CONCURRENCIES = (process.env.BENCH_GATEWAY_CONCURRENCY ?? "1,16").split(",").map(Number);
/** Measured requests per worker count for the throughput comparison. */
const THROUGHPUT_REQUESTS = Number(process.env.BENCH_GATEWAY_THROUGHPUT_REQUESTS ?? 3_000);

/** The least any Node proxy adds (bare-proxy.ts): the floor under the pass-through targets, measured in the same rounds. */
const BARE_PROXY = "bare Node proxy (node:http + undici)";

export interface GatewayRow {
  target: string;
  concurrency: number;
  p50: number;
  p95: number;
  p99: number;
}

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  bodies: string[];
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Starts a process and resolves with the port it prints ("listening <port>"); or, given `port`, once it prints
 * `ready`, or else once `port` answers.
 */
function startProcess(command: string, args: string[], env: NodeJS.ProcessEnv, port?: number, ready?: RegExp): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const fail = (error: Error) => {
      child.kill();
      reject(error);
    };
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}: ${output}`)));
    child.stdout!.on("data", (data: Buffer) => {
      output += data.toString();
      const match = output.match(/listening (\d+)/);
      if (match && port === undefined) resolve({ child, port: Number(match[1]) });
      if (ready && port !== undefined && ready.test(output)) resolve({ child, port });
    });
    child.stderr!.on("data", (data: Buffer) => (output += data.toString()));
    if (port !== undefined && !ready) {
      const deadline = Date.now() + 20_000;
      const poll = async () => {
        try {
          await fetch(`http://127.0.0.1:${port}/`);
          resolve({ child, port });
        } catch {
          if (Date.now() > deadline) return fail(new Error(`nothing answered on ${port}: ${output}`));
          setTimeout(poll, 100);
        }
      };
      void poll();
    }
  });
}

/**
 * A port the system hands out and this process gives back at once: free unless another process takes it in
 * the moment between (a port drawn at random may be one an open connection already uses).
 */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, "127.0.0.1");
  await once(probe, "listening");
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Requests per second, and the cores used meanwhile by Engram's processes and by everything else the run needs. */
export interface Throughput {
  perSecond: number;
  engramCores: number;
  loadAndModelCores: number;
}

/** Memory-grounded chat at c=16 through `engram serve --workers N` over the same database. */
async function workersThroughput(databaseFile: string, upstream: ChildProcess, upstreamUrl: string, target: Target, workers: number): Promise<Throughput> {
  const port = await freePort();
  const entry = fileURLToPath(new URL("../src/cli.ts", import.meta.url));
  const serve = await startProcess(
    process.execPath,
    ["--conditions=source", "--import", "tsx", entry, "serve", "--workers", String(workers)],
    {
      PORT: String(port),
      HOST: "127.0.0.1",
      ENGRAM_DATA_DIR: dirname(databaseFile),
      DATABASE_URL: "",
      LOG_LEVEL: "warn",
      ENGRAM_CONSOLE_DIR: "off",
      ENGRAM_REFLECTION: "off",
      ENGRAM_RATE_LIMITS: "*.*=1000000000",
      ENGRAM_UPSTREAM_BASE_URL: upstreamUrl,
      ENGRAM_UPSTREAM_API_KEY: "sk-bench",
      ENGRAM_UPSTREAM_MODEL: "bench-model",
    },
    port,
    // Printed once every worker listens: the first-run greeting, or the note about tokens.
    /Tokens are shown only when created|ENGRAM_ADMIN_PASSWORD/,
  );
  try {
    const loaded = { ...target, url: `http://127.0.0.1:${port}/v1/chat/completions` };
    await latencyFromWorker(loaded, 16, 400, 0);
    // The load generator is a thread of this process; the model stand-in is a process of its own.
    const others = () => processCpuMs(process.pid) + processCpuMs(upstream.pid!);
    const before = { engram: treeCpuMs(serve.child.pid!), others: others(), at: performance.now() };
    const { samples, elapsedMs } = await latencyFromWorker(loaded, 16, THROUGHPUT_REQUESTS, 0);
    const wallMs = performance.now() - before.at;
    return {
      perSecond: samples.length / (elapsedMs / 1000),
      engramCores: (treeCpuMs(serve.child.pid!) - before.engram) / wallMs,
      loadAndModelCores: (others() - before.others) / wallMs,
    };
  } finally {
    const exited = new Promise((resolve) => serve.child.once("exit", resolve));
    serve.child.kill("SIGTERM");
    await exited;
  }
}

export interface GatewayResults {
  rows: GatewayRow[];
  /** Time to first byte of a streamed answer at c=1, p50: straight to the model and through Engram. */
  streaming: { direct: number; engram: number };
  /** Memory-grounded chat at c=16, by worker count. */
  throughput: Map<number, Throughput>;
}

export async function benchGateway(): Promise<GatewayResults> {
  const here = dirname(fileURLToPath(import.meta.url));
  const upstream = await startProcess(process.execPath, [join(here, "gateway-upstream.mjs")], {});
  const upstreamUrl = `http://127.0.0.1:${upstream.port}/v1`;
  const portkeyEntry = join(dirname(createRequire(import.meta.url).resolve("@portkey-ai/gateway/package.json")), "build/start-server.js");
  const portkeyPort = await freePort();
  const portkey = await startProcess(process.execPath, [portkeyEntry, `--port=${portkeyPort}`, "--headless"], { NODE_ENV: "production" }, portkeyPort);
  const bareProxy = await startBareProxy(upstreamUrl, "bench-model");

  const databaseFile = join(mkdtempSync(join(tmpdir(), "engram-bench-gateway-")), "engram.db");
  const server = await startServer(
    {
      port: 0,
      host: "127.0.0.1",
      dataDir: tmpdir(),
      database: { provider: "sqlite", file: databaseFile },
      logLevel: "silent",
      authCacheMs: DEFAULT_AUTH_CACHE_MS,
      // Limits stay on (their cost is part of every request) but high enough never to refuse.
      rateLimits: parseRateLimitSetting("*.*=1000000000"),
      inference: { modelId: DEFAULT_MODEL_ID, upstream: { baseUrl: upstreamUrl, apiKey: "sk-bench", model: "bench-model", timeoutMs: 30_000 } },
    },
    createLogger("silent"),
  );
  const rows: GatewayRow[] = [];
  const throughput = new Map<number, Throughput>();
  let streaming = { direct: 0, engram: 0 };
  try {
    const { organizations, tokens, memories } = server.services;
    const org = await organizations.create({ name: "gateway-bench", plan: "boost" });
    const { token } = await tokens.create({ orgId: org.id, name: "bench", scopes: [...memoryScopes, "inference:chat"], environment: "production" });
    const caller = await tokens.authenticate(token, "bench");
    const corpus = [...syntheticMemories(MEMORIES)];
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < corpus.length) await memories.encode(caller, null, corpus[next++]!, undefined);
      }),
    );

    const chat = (model: string, question: string) =>
      JSON.stringify({ model, messages: [{ role: "system", content: "You are the on-call assistant." }, { role: "user", content: question }], max_tokens: 256 });
    const questions = benchmarkQueries.map((q) => `${q}?`);
    const json = { "content-type": "application/json" };
    const direct: Target = { name: "direct to the model", url: `${upstreamUrl}/chat/completions`, headers: { ...json, authorization: "Bearer sk-bench" }, bodies: questions.map((q) => chat("bench-model", q)) };
    const passThrough: Target = {
      name: "Engram, pass-through (X-Engram-Memory: off)",
      url: `${server.url}/v1/chat/completions`,
      headers: { ...json, authorization: `Bearer ${token}`, "x-engram-memory": "off" },
      bodies: questions.map((q) => chat(DEFAULT_MODEL_ID, q)),
    };
    const memoryChat: Target = {
      name: `Engram, memory injection (${MEMORIES} memories)`,
      url: `${server.url}/v1/chat/completions`,
      headers: { ...json, authorization: `Bearer ${token}` },
      bodies: questions.map((q) => chat(DEFAULT_MODEL_ID, q)),
    };
    const portkeyChat: Target = {
      name: "Portkey gateway (open source)",
      url: `http://127.0.0.1:${portkey.port}/v1/chat/completions`,
      headers: { ...json, authorization: "Bearer sk-bench", "x-portkey-provider": "openai", "x-portkey-custom-host": upstreamUrl },
      bodies: questions.map((q) => chat("bench-model", q)),
    };
    const bareProxyChat: Target = { name: BARE_PROXY, url: `${bareProxy.url}/v1/chat/completions`, headers: json, bodies: questions.map((q) => chat(DEFAULT_MODEL_ID, q)) };
    const targets = [direct, passThrough, memoryChat, portkeyChat, bareProxyChat];

    for (const concurrency of CONCURRENCIES) {
      const samples = new Map<string, number[]>(targets.map((t) => [t.name, []]));
      const perRound = Math.ceil(REQUESTS / ROUNDS);
      for (let round = 0; round < ROUNDS; round++) {
        for (const target of targets) {
          const measured = await latencyFromWorker(target, concurrency, perRound, round === 0 ? Math.max(200, concurrency * 20) : concurrency * 4);
          samples.get(target.name)!.push(...measured.samples);
        }
      }
      for (const target of targets) {
        const sorted = Float64Array.from(samples.get(target.name)!).sort();
        rows.push({ target: target.name, concurrency, p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) });
      }
    }

    // Streaming: the first byte of the answer, straight from the model and through Engram (pass-through), alternating.
    const streamed = (target: Target): Target => ({ ...target, bodies: target.bodies.map((body) => JSON.stringify({ ...JSON.parse(body), stream: true })) });
    const [directStream, engramStream] = [streamed(direct), streamed(passThrough)];
    const firstBytes = { direct: [] as number[], engram: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      firstBytes.direct.push(...(await latencyFromWorker(directStream, 1, Math.ceil(REQUESTS / ROUNDS), 200, true)).samples);
      firstBytes.engram.push(...(await latencyFromWorker(engramStream, 1, Math.ceil(REQUESTS / ROUNDS), 200, true)).samples);
    }
    const p50 = (values: number[]) => percentile(Float64Array.from(values).sort(), 50);
    streaming = { direct: p50(firstBytes.direct), engram: p50(firstBytes.engram) };

    // Worker scaling: the memory-grounded chat at c=16 through separate `engram serve` processes, 1 then 2 workers.
    for (const workers of [1, 2]) throughput.set(workers, await workersThroughput(databaseFile, upstream.child, upstreamUrl, memoryChat, workers));
  } finally {
    await server.close();
    await bareProxy.close();
    portkey.child.kill();
    upstream.child.kill();
  }
  return { rows, streaming, throughput };
}

/** Memory chat's throughput at c=16 with two workers, over one worker's. */
const WORKERS_TARGET = 1.8;

/** The gateway's targets, from one run's figures. */
export function gatewayTargets({ rows, streaming, throughput }: GatewayResults): TargetRow[] {
  const added = (target: string, concurrency: number) => {
    const row = rows.find((r) => r.target.startsWith(target) && r.concurrency === concurrency);
    const direct = rows.find((r) => r.target === "direct to the model" && r.concurrency === concurrency);
    return row && direct ? row.p50 - direct.p50 : Number.NaN;
  };
  const passThrough1 = added("Engram, pass-through", 1);
  const passThrough16 = added("Engram, pass-through", 16);
  const portkey1 = added("Portkey", 1);
  const portkey16 = added("Portkey", 16);
  const [single, pair] = [throughput.get(1), throughput.get(2)];
  const one = single?.perSecond ?? Number.NaN;
  const two = pair?.perSecond ?? Number.NaN;
  const cores = (used: Throughput | undefined) => (used ? `${used.engramCores.toFixed(2)} + ${used.loadAndModelCores.toFixed(2)}` : "n/a");
  // What two workers could reach on this machine at one worker's CPU per request, given what the load and the
  // model took beside them: the cores left to Engram over the cores one worker used.
  const ceiling = single && pair ? (availableParallelism() - pair.loadAndModelCores) / single.engramCores : Number.NaN;
  // The cores 1.8× would take at two workers' CPU per request, Engram's and the load's and the model's alike.
  const coresForTarget = pair ? (WORKERS_TARGET / (two / one)) * (pair.engramCores + pair.loadAndModelCores) : Number.NaN;
  return [
    atMost("chat pass-through, added p50, c=1", passThrough1, 0.5),
    atMost("chat pass-through, added p50, c=1, vs Portkey's", passThrough1, portkey1 / 4, `¼ × ${portkey1.toFixed(2)} ms`),
    atMost("chat pass-through, added p50, c=16, vs Portkey's", passThrough16, portkey16 / 4, `¼ × ${portkey16.toFixed(2)} ms`),
    reported("  the floor: a bare Node proxy, added p50, c=1 / c=16", `${added(BARE_PROXY, 1).toFixed(2)} / ${added(BARE_PROXY, 16).toFixed(2)} ms`),
    atMost(`chat with memory (${MEMORIES} memories), added p50, c=1`, added("Engram, memory injection", 1), 3),
    reported(`chat with memory (${MEMORIES} memories), added p50, c=16`, `${added("Engram, memory injection", 16).toFixed(2)} ms`),
    atLeast(
      "chat with memory, c=16, throughput 2 workers / 1 worker",
      two / one,
      WORKERS_TARGET,
      (n) => `${n.toFixed(2)}× (${Math.round(two)} / ${Math.round(one)} req/s)`,
      `${WORKERS_TARGET.toFixed(2)}×`,
    ),
    ...(cpuUsageAvailable
      ? [reported("  cores used by Engram + the load and the model, 1 worker / 2", `${cores(single)} / ${cores(pair)}; ${availableParallelism()} cores allow ${ceiling.toFixed(2)}×; ${WORKERS_TARGET.toFixed(2)}× takes ${coresForTarget.toFixed(2)} cores`)]
      : []),
    atMost("streaming, time to first byte added over direct, p50, c=1", streaming.engram - streaming.direct, 1),
  ];
}

/** The table of latencies, with each gateway's added latency over the direct call at the same percentile. */
export function formatGatewayRows(rows: GatewayRow[]): string {
  const lines = [`Inference gateway latency (${REQUESTS} requests per target and concurrency, in ${ROUNDS} alternating rounds; ms)`, ""];
  const width = Math.max(...rows.map((r) => r.target.length));
  const ms = (n: number) => n.toFixed(2).padStart(7);
  lines.push(`${"target".padEnd(width)}  conc      p50     p95     p99   added: p50     p95     p99`);
  for (const row of rows) {
    const direct = rows.find((r) => r.concurrency === row.concurrency && r.target === "direct to the model")!;
    const added = row === direct ? "" : `          ${ms(row.p50 - direct.p50)} ${ms(row.p95 - direct.p95)} ${ms(row.p99 - direct.p99)}`;
    lines.push(`${row.target.padEnd(width)}  ${String(row.concurrency).padStart(4)}  ${ms(row.p50)} ${ms(row.p95)} ${ms(row.p99)}${added}`);
  }
  return lines.join("\n");
}
