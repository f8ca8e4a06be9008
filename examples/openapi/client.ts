/**
 * A client generated from Engram's OpenAPI document (contract/openapi.json) with openapi-typescript, called
 * through openapi-fetch: what any other language's generator gets from the same document.
 *   ENGRAM_TOKEN=acm_… pnpm --filter @engram/examples openapi
 * Regenerate the types after a contract change: pnpm --filter @engram/examples openapi:generate
 */
import createClient from "openapi-fetch";
import type { paths } from "./engram-api";

const token = process.env.ENGRAM_TOKEN;
if (!token) throw new Error("set ENGRAM_TOKEN to the token the server printed on first start");
const engram = createClient<paths>({
  baseUrl: process.env.ENGRAM_BASE_URL ?? "http://localhost:8787",
  headers: { authorization: `Bearer ${token}` },
});

const created = await engram.POST("/v1/memory", {
  params: { header: { "idempotency-key": crypto.randomUUID() } },
  body: { text: "The staging database is refreshed from production every Sunday night.", subject: "staging", memoryKind: "fact" },
});
if (!created.data) throw new Error(`encode failed: ${created.error?.error.message}`);
const { memory } = created.data;
console.log(`remembered ${memory.id} (${memory.state})`);

const recalled = await engram.POST("/v1/memory/recall", { body: { query: "when is staging refreshed?", includeContext: true } });
if (!recalled.data) throw new Error(`recall failed: ${recalled.error?.error.message}`);
console.log(`recalled ${recalled.data.memories.length}; context:\n${recalled.data.context?.systemBlock}`);

const provenance = await engram.GET("/v1/memory/{id}/provenance", { params: { path: { id: memory.id } } });
console.log("history:", provenance.data?.history.map((entry) => entry.action).join(", "));

const deleted = await engram.DELETE("/v1/memory/{id}", { params: { path: { id: memory.id } } });
console.log(`tombstoned: ${deleted.data?.memory.state}`);

const missing = await engram.GET("/v1/memory/{id}/provenance", { params: { path: { id: "mem_missing" } } });
console.log(`unknown memory: ${missing.response.status} ${missing.error?.error.code}`);
