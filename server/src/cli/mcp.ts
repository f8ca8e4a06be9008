import { ZAgentSlug } from "@engram/contract";
import { runStdioBridge } from "../mcp/stdio-bridge";
import { required, UsageError } from "./usage";

/**
 * The server's MCP endpoint from `--url` (its address, e.g. http://localhost:8787, or the endpoint itself) and
 * `--agent`. Refused here, with a clear message, rather than failing on the client's first request.
 */
export function mcpEndpoint(url: string, agent: string | undefined): URL {
  let endpoint: URL;
  try {
    endpoint = new URL(url);
  } catch {
    throw new UsageError(`--url must be the Engram server's address, such as http://localhost:8787 (got "${url}")`);
  }
  if (endpoint.protocol !== "http:" && endpoint.protocol !== "https:") throw new UsageError(`--url must be an http:// or https:// address (got "${url}")`);
  if (agent !== undefined && !ZAgentSlug.safeParse(agent).success) throw new UsageError(`--agent must be an agent slug: lower-case letters, digits and dashes (got "${agent}")`);
  const base = endpoint.pathname.replace(/\/+$/, "").replace(/\/mcp$/, "");
  endpoint.pathname = `${base}/mcp${agent ? `/agents/${agent}` : ""}`;
  return endpoint;
}

/** `engram mcp --url URL [--agent SLUG]`: MCP on stdin/stdout, forwarded to a running server with ENGRAM_TOKEN. */
export async function mcp(values: { url?: string; agent?: string }, env: NodeJS.ProcessEnv, err: (line: string) => void): Promise<void> {
  const endpoint = mcpEndpoint(required(values.url, "--url"), values.agent);
  // Trimmed: a token pasted with its line break would make every request's header invalid.
  const token = env.ENGRAM_TOKEN?.trim();
  if (!token) throw new UsageError("ENGRAM_TOKEN must hold the access token (acm_…) the MCP client acts with");
  await runStdioBridge({ endpoint, token, input: process.stdin, output: process.stdout, log: err });
}
