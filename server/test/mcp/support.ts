import type { TErrorBody } from "@engram/contract";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";

export const allToolNames = ["remember", "recall", "reinforce", "suppress", "restore", "forget", "provenance", "send_event"];

const clientInfo = { name: "engram-tests", version: "1.0.0" };

/** The official SDK's client over Streamable HTTP, to `/mcp` or its agent form, with the token and any extra headers. */
export async function connectOverHttp(baseUrl: string, token: string, options: { agent?: string; headers?: Record<string, string> } = {}): Promise<Client> {
  const endpoint = new URL(options.agent ? `/mcp/agents/${options.agent}` : "/mcp", baseUrl);
  const transport = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${token}`, ...options.headers } } });
  const client = new Client(clientInfo);
  await client.connect(transport);
  return client;
}

/** `engram mcp --url …` as a desktop client launches it: the CLI in its own process, spoken to over stdio. */
export function cliTransport(args: string[], env: Record<string, string>): StdioClientTransport {
  const entry = new URL("../../src/cli.ts", import.meta.url).pathname;
  return new StdioClientTransport({
    command: process.execPath,
    args: ["--conditions=source", "--import", "tsx", entry, "mcp", ...args],
    env: { PATH: process.env.PATH ?? "", ...env },
    stderr: "pipe",
  });
}

/** The official SDK's client over stdio, through the CLI's bridge to `baseUrl`. */
export async function connectOverStdio(baseUrl: string, token: string, args: string[] = []): Promise<Client> {
  const client = new Client(clientInfo);
  await client.connect(cliTransport(["--url", baseUrl, ...args], { ENGRAM_TOKEN: token }));
  return client;
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The structured content of a call that succeeded. */
export function structured<T = any>(result: CallToolResult): T {
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as T;
}

/** The HTTP API's error body carried by a tool error. */
export function toolError(result: CallToolResult): TErrorBody {
  expect(result.isError, JSON.stringify(result.structuredContent)).toBe(true);
  const [first] = result.content;
  if (first?.type !== "text") throw new Error("a tool error carries its body as text");
  return JSON.parse(first.text) as TErrorBody;
}

/** The text blocks of a result, in order. */
export function texts(result: CallToolResult): string[] {
  return result.content.flatMap((block) => (block.type === "text" ? [block.text] : []));
}

/** The ids of a recall's memories, most useful first. */
export async function recalledIds(client: Client, query: string): Promise<string[]> {
  return structured<{ memories: Array<{ id: string }> }>(await call(client, "recall", { query })).memories.map((memory) => memory.id);
}
