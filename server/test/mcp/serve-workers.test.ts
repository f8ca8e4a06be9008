import { afterAll, beforeAll, expect, it } from "vitest";
import { type EngramServe, freshDatabase, onNewConnection, startEngramServe } from "@engram/test-support";
import { connectOverHttp, recalledIds } from "./support";

/**
 * `engram serve --workers 2` hands each new connection to the next worker: MCP must work whichever worker
 * answers each POST, which is why the endpoint keeps no session.
 */
let serve: EngramServe;
beforeAll(async () => {
  serve = await startEngramServe(await freshDatabase(), 2);
}, 60_000);
afterAll(() => serve?.stop("SIGKILL"));

const rpc = (id: number, method: string, params: object) => ({ jsonrpc: "2.0", id, method, params });

/** One MCP message on a connection of its own, so successive messages reach every worker in turn. */
function onWorkerInTurn(message: object) {
  return onNewConnection(`${serve.url}/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${serve.token}`, accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
    body: message,
  });
}

it("serves MCP on every worker with no session: an initialize on one connection, tool calls on the next ones", async () => {
  expect(serve.workerPids()).toHaveLength(2);
  const initialized = await onWorkerInTurn(rpc(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }));
  expect(initialized.status).toBe(200);
  expect(initialized.headers["mcp-session-id"]).toBeUndefined();

  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const answer = await onWorkerInTurn(rpc(2 + i, "tools/call", { name: "remember", arguments: { text: `Worker round ${i}: the kiln service rotates its keys weekly.` } }));
    expect(answer.status).toBe(200);
    ids.push(answer.body.result.structuredContent.memory.id);
  }
  const recalled = await onWorkerInTurn(rpc(9, "tools/call", { name: "recall", arguments: { query: "kiln keys", limit: 10 } }));
  expect(recalled.body.result.structuredContent.memories.map((memory: { id: string }) => memory.id).sort()).toEqual([...ids].sort());

  const client = await connectOverHttp(serve.url, serve.token);
  try {
    expect((await recalledIds(client, "kiln keys")).sort()).toEqual([...ids].sort());
  } finally {
    await client.close();
  }
});
