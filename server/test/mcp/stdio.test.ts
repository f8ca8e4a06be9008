import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenOnLoopback, startTestServer, type TestServer } from "@engram/test-support";
import { mcpEndpoint } from "../../src/cli/mcp";
import { mcpToolSuites } from "./suites";
import { connectOverStdio } from "./support";

mcpToolSuites("stdio (engram mcp)", (url, token, options) => connectOverStdio(url, token, options?.agent ? ["--agent", options.agent] : []));

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

const entry = new URL("../../src/cli.ts", import.meta.url).pathname;

/** `engram mcp …` in its own process, fed `input` on stdin; resolves with its status and everything it wrote. */
function runMcpCommand(args: string[], env: Record<string, string>, input: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", entry, "mcp", ...args], { env: { PATH: process.env.PATH ?? "", ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  for (const line of input) child.stdin.write(`${line}\n`);
  child.stdin.end();
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

async function closedPort(): Promise<number> {
  const probe = createServer();
  const port = await listenOnLoopback(probe);
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe("engram mcp", () => {
  it("passes a refusal at connection on as the server's documented error", async () => {
    const refused = await connectOverStdio(server.url, `acm_${"z".repeat(43)}`).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpError);
    expect(refused).toMatchObject({ message: expect.stringContaining("invalid_api_key"), data: { status: 401, error: { code: "invalid_api_key", type: "authentication_error" } } });
  });

  it("answers requests with an error, rather than leave the client waiting, when the server cannot be reached", async () => {
    const { token } = await server.newTenant();
    const unreachable = await connectOverStdio(`http://127.0.0.1:${await closedPort()}`, token).catch((error: unknown) => error);
    expect(unreachable).toBeInstanceOf(McpError);
    expect((unreachable as Error).message).toContain("could not be reached");
  });

  it("writes nothing but MCP to stdout, and ends with status 0 when the client closes stdin", async () => {
    const { token } = await server.newTenant();
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
    const listTools = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    const { code, stdout } = await runMcpCommand(["--url", server.url], { ENGRAM_TOKEN: token }, [JSON.stringify(initialize), JSON.stringify(listTools)]);
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(lines.map((message) => message.id).sort()).toEqual([1, 2]);
    for (const message of lines) expect(message).toMatchObject({ jsonrpc: "2.0", result: expect.any(Object) });
  });

  it("refuses a mistake in the call with status 2 and a message on stderr, writing nothing to stdout", async () => {
    const token = { ENGRAM_TOKEN: `acm_${"t".repeat(43)}` };
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [["--url", "http://127.0.0.1:8787"], {}, /ENGRAM_TOKEN must hold the access token/],
      [[], token, /--url is required/],
      [["--url", "not a url"], token, /--url must be the Engram server's address/],
      [["--url", "ftp://127.0.0.1"], token, /--url must be an http:\/\/ or https:\/\/ address/],
      [["--url", "http://127.0.0.1:8787", "--agent", "Not A Slug"], token, /--agent must be an agent slug/],
    ];
    const runs = await Promise.all(cases.map(([args, env]) => runMcpCommand(args, env)));
    runs.forEach((run, i) => {
      expect(run, cases[i]![0].join(" ")).toMatchObject({ code: 2, stdout: "", stderr: expect.stringMatching(cases[i]![2]) });
    });
  });
});

describe("the endpoint engram mcp speaks to", () => {
  it("is the server's /mcp, or its agent form, whether --url names the server or the endpoint", () => {
    expect(mcpEndpoint("http://localhost:8787", undefined).href).toBe("http://localhost:8787/mcp");
    expect(mcpEndpoint("http://localhost:8787/", "triage-bot").href).toBe("http://localhost:8787/mcp/agents/triage-bot");
    expect(mcpEndpoint("https://engram.example.com/memory/mcp", undefined).href).toBe("https://engram.example.com/memory/mcp");
    expect(mcpEndpoint("https://engram.example.com/memory/mcp/", "alpha").href).toBe("https://engram.example.com/memory/mcp/agents/alpha");
  });
});
