import type { Readable, Writable } from "node:stream";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  ErrorCode,
  isInitializeRequest,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";

export interface StdioBridgeOptions {
  /** The server's MCP endpoint (`…/mcp`, or `…/mcp/agents/SLUG`). */
  endpoint: URL;
  /** The access token every request carries. */
  token: string;
  input: Readable;
  output: Writable;
  /** One line of diagnostics (stderr: stdout carries only MCP). */
  log(line: string): void;
}

/**
 * Relays MCP between a client on stdin/stdout and Engram's Streamable HTTP endpoint, message for message, so
 * the tools, their errors and the token's scopes are exactly the server's. Resolves when the client closes stdin.
 */
export async function runStdioBridge({ endpoint, token, input, output, log }: StdioBridgeOptions): Promise<void> {
  const local = new StdioServerTransport(input, output);
  const remote = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const initializeIds = new Set<RequestId>();
  const inFlight = new Set<Promise<void>>();

  local.onmessage = (message) => {
    if (isJSONRPCRequest(message) && isInitializeRequest(message)) initializeIds.add(message.id);
    // A request the server did not answer still gets an answer, so the client never waits for nothing.
    const relayed = remote.send(message).catch(async (error: unknown) => {
      if (isJSONRPCRequest(message)) await local.send(failureAnswer(message.id, error, endpoint));
    });
    inFlight.add(relayed);
    void relayed.finally(() => inFlight.delete(relayed));
  };
  remote.onmessage = (message) => {
    // Later requests name the negotiated version, as the SDK's own client does after initializing.
    if (isJSONRPCResultResponse(message) && initializeIds.delete(message.id)) remote.setProtocolVersion(String(message.result.protocolVersion));
    void local.send(message);
  };
  remote.onerror = (error) => log(`engram mcp: ${endpoint.origin}: ${error.message}`);
  local.onerror = (error) => log(`engram mcp: stdin: ${error.message}`);

  const ended = new Promise<void>((resolve) => {
    input.once("end", resolve);
    input.once("close", resolve);
  });
  await remote.start();
  await local.start();
  await ended;
  // A client may close stdin right after its last request (a script piping messages in): those are still answered.
  await Promise.allSettled(inFlight);
  await local.close();
  await remote.close();
}

/** The JSON-RPC error answering a request that could not be relayed, with the server's documented error when it sent one. */
function failureAnswer(id: RequestId, error: unknown, endpoint: URL): JSONRPCMessage {
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400) {
    const refusal = documentedError(error.message);
    const code = error.code < 500 ? ErrorCode.InvalidRequest : ErrorCode.InternalError;
    const message = refusal ? `${refusal.error.code}: ${refusal.error.message}` : error.message;
    return { jsonrpc: "2.0", id, error: { code, message, data: { status: error.code, ...refusal } } };
  }
  const reason = error instanceof Error ? `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ""}` : String(error);
  return { jsonrpc: "2.0", id, error: { code: ErrorCode.InternalError, message: `Engram at ${endpoint.origin} could not be reached: ${reason}` } };
}

interface DocumentedError {
  error: { code: string; message: string };
}

/** The SDK passes the refusal's body only inside its message ("Error POSTing to endpoint: {…}"). */
function documentedError(message: string): DocumentedError | null {
  const start = message.indexOf("{");
  if (start < 0) return null;
  try {
    const body = JSON.parse(message.slice(start)) as Partial<DocumentedError>;
    return typeof body.error?.code === "string" && typeof body.error.message === "string" ? (body as DocumentedError) : null;
  } catch {
    return null;
  }
}
