import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { requireScope } from "../domain/access/caller";
import { AppError } from "../domain/kernel/errors";
import type { RateLimiter } from "../domain/rate-limits/limiter";
import type { RouteGroup } from "../domain/rate-limits/policy";
import { errorBodyOf, fromZodIssue } from "../http/errors";
import { rateLimitExceeded } from "../http/rate-limit";
import type { ToolConnection, ToolDefinition, ToolServices } from "./tool-definition";
import { tools } from "./tools";

export interface McpServices extends ToolServices {
  rateLimiter: RateLimiter;
}

const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));

/** The tools a connection can use: those its token's scopes allow, and only those with an agent form inside an agent. */
export function availableTools({ caller, agent }: ToolConnection): ToolDefinition[] {
  return tools.filter((tool) => caller.scopes.includes(tool.scope) && (agent === null || tool.agentForm));
}

/**
 * One tools/call, as its route would answer it: counted once in the route's rate-limit group, then the scope
 * (checked before the arguments, so a tool the token cannot use says which scope it lacks whatever it was
 * sent), the arguments against the contract's schema, and the domain service. Every failure is a tool error
 * carrying the HTTP API's error body; only an unknown tool name is a protocol error.
 */
export async function callTool(services: McpServices, connection: ToolConnection, name: string, args: unknown): Promise<CallToolResult> {
  const tool = toolsByName.get(name);
  if (!tool) throw new McpError(ErrorCode.InvalidParams, `No tool named "${name}"; tools/list names the tools this token may call.`);
  try {
    await admit(services.rateLimiter, connection, tool.rateLimitGroup);
    requireScope(connection.caller, tool.scope);
    if (connection.agent !== null && !tool.agentForm) {
      throw new AppError("invalid_parameter", `${tool.name} has no agent form (events belong to the whole organization); call it on a connection without an agent.`);
    }
    return await tool.call(services, connection, parseArguments(tool, args));
  } catch (error) {
    return toolError(error, connection.log);
  }
}

async function admit(limiter: RateLimiter, { caller }: ToolConnection, group: RouteGroup): Promise<void> {
  const decision = await limiter.take(caller, group);
  if (decision && !decision.allowed) throw rateLimitExceeded(decision, group);
}

/** The arguments as the route's schema reads them, or the route's error for the first problem, naming the field. */
function parseArguments(tool: ToolDefinition, args: unknown): Record<string, unknown> {
  const parsed = tool.input.safeParse(args ?? {});
  if (!parsed.success) throw fromZodIssue(parsed.error.issues[0]!, "body");
  return parsed.data;
}

/**
 * The HTTP API's error body as the tool's text. Not as structured content: a client checks that against the
 * tool's output schema, which describes success.
 */
export function toolError(error: unknown, log: Logger): CallToolResult {
  if (!(error instanceof AppError)) log.error({ err: error }, "MCP tool call failed");
  else if (error.code === "service_unavailable") log.warn({ err: error.cause ?? error }, error.message);
  return { isError: true, content: [{ type: "text", text: JSON.stringify(errorBodyOf(error)) }] };
}
