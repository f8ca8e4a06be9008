import { contract } from "@engram/contract";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import express, { type Request, type RequestHandler, type Router } from "express";
import type { TokenService } from "../domain/access/access-tokens";
import { type Caller, resolveAgent } from "../domain/access/caller";
import { AppError } from "../domain/kernel/errors";
import { authenticate, callerOf } from "../http/auth";
import { jsonBody } from "../http/body";
import { fromZodIssue } from "../http/errors";
import { checkInput } from "../http/input-checks";
import { mcpServer } from "./mcp-server";
import type { McpServices } from "./tool-calls";
import type { ToolConnection } from "./tool-definition";

/** The MCP endpoint, and its agent form (like the memory routes' `/agents/:agentSlug`). */
export const mcpPaths = ["/mcp", "/mcp/agents/:agentSlug"];

// The memory routes' own schemas for the agent in the path and in X-Service-Agent, so both refuse alike.
const agentPath = contract.memory.retrieveForAgent.pathParams;
const agentHeader = contract.memory.retrieve.headers;

/** The agent the connection acts for, resolved and refused exactly as the memory routes do. */
function connectionAgent(req: Request, caller: Caller): string | null {
  let fromPath: string | undefined;
  if (req.params.agentSlug !== undefined) {
    const path = agentPath.safeParse(req.params);
    if (!path.success) throw fromZodIssue(path.error.issues[0]!, "path");
    fromPath = path.data.agentSlug;
  }
  const headers = agentHeader.safeParse(req.headers);
  if (!headers.success) throw fromZodIssue(headers.error.issues[0]!, "header");
  return resolveAgent(caller, fromPath, headers.data["x-service-agent"]);
}

const UNSENDABLE_ANSWER = "The answers to this request are too large to send in one response: send fewer tool calls at a time.";

/**
 * Serves one POST with a server and transport of its own (stateless Streamable HTTP, JSON answers): the
 * workers of `engram serve` share one port, so no session may live in one worker's memory (docs/mcp.md).
 */
function serveMcp(services: McpServices): RequestHandler {
  return (req, res, next) => {
    const caller = callerOf(res);
    const agent = connectionAgent(req, caller);
    // The request's logger is made only when a line is written, as for the routes.
    const connection: ToolConnection = {
      caller,
      agent,
      get log() {
        return req.log;
      },
    };
    const server = mcpServer(services, connection);
    // An answer the transport cannot send (longer than a JavaScript string can be: a batch of a hundred large
    // answers) reaches only this hook, and the request would never be answered: it is answered here instead.
    server.onerror = (error) => {
      if (!error.message.startsWith("Failed to send response") || res.headersSent) return req.log.warn({ err: error }, "MCP protocol error");
      next(/Invalid string length/.test(error.message) ? new AppError("payload_too_large", UNSENDABLE_ANSWER) : error);
    };
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.once("close", () => server.close().catch((error: unknown) => req.log.warn({ err: error }, "closing an MCP server failed")));
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res, req.body))
      .catch(next);
  };
}

const refuseOtherMethods: RequestHandler = (req, res, next) => {
  res.setHeader("Allow", "POST");
  next(new AppError("method_not_allowed", `${req.method} ${req.path} is not served: this MCP endpoint is stateless, one POST per message (no event stream, no session to end).`));
};

/**
 * `/mcp`: the token is checked (a bad one is refused with the documented 401 before any MCP is read), then
 * the body is read and checked as on every route; tool calls count in their routes' rate-limit groups.
 */
export function mcpRoutes(services: McpServices & { tokens: TokenService }): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  const serve = [authenticate(services.tokens), jsonBody, checkInput, serveMcp(services)];
  // One route per path: a path list would give `/mcp` an undefined agentSlug parameter.
  for (const path of mcpPaths) {
    router.post(path, ...serve);
    router.all(path, refuseOtherMethods);
  }
  return router;
}
