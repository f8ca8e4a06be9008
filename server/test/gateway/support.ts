import { DEFAULT_MODEL_ID, memoryScopes, type TScope } from "@engram/contract";
import OpenAI from "openai";
import { apiClient, type ChatUpstream, startChatUpstream, startTestServer, type TestServer, type TestServerOptions } from "@engram/test-support";

export const MODEL = DEFAULT_MODEL_ID;
export const UPSTREAM_MODEL = "tiny-upstream";

/** The official OpenAI client pointed at the gateway (`/v1`, or an agent's `/v1/agents/<slug>`). */
export function openai(server: { url: string }, token: string, options: { agent?: string; headers?: Record<string, string> } = {}): OpenAI {
  const baseURL = options.agent ? `${server.url}/v1/agents/${options.agent}` : `${server.url}/v1`;
  return new OpenAI({ apiKey: token, baseURL, maxRetries: 0, defaultHeaders: options.headers });
}

/** The server with an OpenAI-compatible upstream the test started, and rate limits out of the way. */
export async function startGateway(options: TestServerOptions & { timeoutMs?: number } = {}): Promise<{ server: TestServer; upstream: ChatUpstream; stop(): Promise<void> }> {
  const upstream = await startChatUpstream();
  const { timeoutMs, ...settings } = options;
  const server = await startTestServer({
    inference: { modelId: MODEL, upstream: { baseUrl: upstream.baseUrl, apiKey: "sk-upstream-secret", model: UPSTREAM_MODEL, timeoutMs: timeoutMs ?? 10_000 } },
    rateLimits: "off",
    ...settings,
  });
  return {
    server,
    upstream,
    async stop() {
      await server.stop();
      await upstream.close();
    },
  };
}

/** An organization with a chat token (inference:chat and the memory scopes) and some memories. */
export async function tenantWithMemories(server: TestServer, memories: Array<{ text: string; subject?: string; agent?: string }> = [], scopes: TScope[] = [...memoryScopes, "inference:chat"]) {
  const orgId = await server.newOrg();
  const token = await server.newToken(orgId, { scopes });
  const writer = apiClient(server.url, await server.newToken(orgId));
  const ids: string[] = [];
  for (const memory of memories) {
    const res = memory.agent
      ? await writer.memory.encodeForAgent({ params: { agentSlug: memory.agent }, body: { text: memory.text, subject: memory.subject } })
      : await writer.memory.encode({ body: { text: memory.text, subject: memory.subject } });
    if (res.status !== 201) throw new Error(`encode failed: ${JSON.stringify(res.body)}`);
    ids.push(res.body.memory.id);
  }
  return { orgId, token, ids };
}

/** The raw SSE `data:` payloads of a streamed answer, in order. */
export async function sseEvents(response: Response): Promise<string[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      if (!block.startsWith("data: ")) throw new Error(`not an SSE data event: ${block}`);
      return block.slice("data: ".length);
    });
}

export function chatRequest(server: { url: string }, token: string, body: unknown, init: { path?: string; headers?: Record<string, string> } = {}) {
  return fetch(`${server.url}${init.path ?? "/v1/chat/completions"}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A response's JSON body, untyped, for assertions. */
export async function jsonOf(response: Response): Promise<any> {
  return response.json();
}
