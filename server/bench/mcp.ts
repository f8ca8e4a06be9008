/**
 * MCP beside the route it mirrors: the latency a recall tool call over Streamable HTTP (`POST /mcp`) adds to
 * the same retrieval through `POST /v1/memory/recall` (with its context block, as the tool always assembles
 * one), sequential over one keep-alive connection, on SQLite with BENCH_MCP_MEMORIES memories. The two are
 * measured alternately, so drift in the machine's load falls on both alike; the official SDK client's own
 * figure is shown beside them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { DEFAULT_AUTH_CACHE_MS } from "../src/domain/access/access-tokens";
import { parseRateLimitSetting } from "../src/domain/rate-limits/policy";
import { createLogger } from "../src/logger";
import { startServer } from "../src/server";
import { benchmarkQueries, syntheticMemories } from "./corpus";
import { reported, type TargetRow } from "./targets";

const MEMORIES = Number(process.env.BENCH_MCP_MEMORIES ?? 5_000);
const CALLS = Number(process.env.BENCH_MCP_CALLS ?? 500);
const WARM_UP = 50;

const percentile = (samples: number[], p: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const summary = (samples: number[]) => `p50 ${percentile(samples, 50).toFixed(2)} ms, p95 ${percentile(samples, 95).toFixed(2)} ms`;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export async function benchMcp(): Promise<{ text: string; targets: TargetRow[] }> {
  const dir = mkdtempSync(join(tmpdir(), "engram-bench-mcp-"));
  const rateLimits = parseRateLimitSetting("*.*=1000000000");
  const server = await startServer(
    { port: 0, host: "127.0.0.1", dataDir: dir, database: { provider: "sqlite", file: join(dir, "engram.db") }, logLevel: "silent", authCacheMs: DEFAULT_AUTH_CACHE_MS, rateLimits },
    createLogger("silent"),
  );
  try {
    const { organizations, tokens, memories } = server.services;
    const org = await organizations.create({ name: "bench-mcp" });
    const { token } = await tokens.create({ orgId: org.id, name: "bench", scopes: ["memory:read", "memory:write"], environment: "production" });
    const caller = await tokens.authenticate(token, "bench");
    const corpus = [...syntheticMemories(MEMORIES)];
    for (let i = 0; i < corpus.length; i += 100) await Promise.all(corpus.slice(i, i + 100).map((memory) => memories.encode(caller, null, memory, undefined)));

    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const query = (i: number) => benchmarkQueries[i % benchmarkQueries.length]!;
    const overRoute = (i: number) =>
      fetch(`${server.url}/v1/memory/recall`, { method: "POST", headers, body: JSON.stringify({ query: query(i), limit: 10, includeContext: true }) }).then((res) => res.arrayBuffer());
    const overMcp = (i: number) =>
      fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: { ...headers, accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
        body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "recall", arguments: { query: query(i), limit: 10 } } }),
      }).then((res) => res.arrayBuffer());
    const client = new Client({ name: "engram-bench", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    const overSdk = (i: number) => client.callTool({ name: "recall", arguments: { query: query(i), limit: 10 } });

    for (let i = 0; i < WARM_UP; i++) {
      await overRoute(i);
      await overMcp(i);
      await overSdk(i);
    }
    const route: number[] = [];
    const mcp: number[] = [];
    const sdk: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      route.push(await timed(() => overRoute(i)));
      mcp.push(await timed(() => overMcp(i)));
      sdk.push(await timed(() => overSdk(i)));
    }
    await client.close();

    const added = percentile(mcp, 50) - percentile(route, 50);
    const rows = [
      ["POST /v1/memory/recall (includeContext)", summary(route)],
      ["recall tool call, POST /mcp (JSON-RPC)", summary(mcp)],
      ["recall tool call, official SDK client", summary(sdk)],
      ["added by MCP, p50 (tool call minus route)", `${added.toFixed(2)} ms`],
    ];
    const width = Math.max(...rows.map(([measure]) => measure!.length));
    const text = [`MCP (SQLite, ${MEMORIES} memories, ${CALLS} sequential calls each)`, ...rows.map(([measure, value]) => `mcp        ${measure!.padEnd(width)}  ${value}`)].join("\n");
    return { text, targets: [reported("recall tool call over MCP, added to the route's p50", `${added.toFixed(2)} ms (route ${percentile(route, 50).toFixed(2)} ms)`)] };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
