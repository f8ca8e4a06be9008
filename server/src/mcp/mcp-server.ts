import { interfaceVersion } from "@engram/contract";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { type CallToolResult, CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { z } from "zod/v4";
import { nextTurn } from "../domain/kernel/in-turns";
import { AppError } from "../domain/kernel/errors";
import { availableTools, callTool, type McpServices, toolError } from "./tool-calls";
import { listedTool, type ToolConnection } from "./tool-definition";
import { tools } from "./tools";

const listedTools = new Map(tools.map((tool) => [tool.name, listedTool(tool)]));

/**
 * tools/call with its params left unread here. Registered with the SDK's own schema, params missing or without a
 * tool's name, or arguments that are not a plain record to its validator (null, an array, an object with a key named
 * "constructor"), failed as an internal error (-32603); read leniently first, the SDK's check of tools/call answers
 * them as invalid params (-32602), the protocol's code for a client's mistake, before the handler runs. Each tool
 * then reads its arguments against its route's schema.
 */
const CallToolRequest = CallToolRequestSchema.extend({ params: z.unknown().optional() });

// A server is made per request; left to itself, each would compile a JSON Schema validator of its own.
const jsonSchemaValidator = new AjvJsonSchemaValidator();

const instructions =
  "Engram is this organization's memory: decisions, procedures, preferences and facts shared by its people and " +
  "assistants. Recall before answering questions about the organization's systems, practices or past decisions; " +
  "remember what the user states the organization should keep; reinforce memories that helped and suppress wrong ones.";

/** An MCP server for one connection (one HTTP request): the tools its caller may use, answered by the domain services. */
export function mcpServer(services: McpServices, connection: ToolConnection): Server {
  const server = new Server({ name: "engram", title: "Engram", version: interfaceVersion }, { capabilities: { tools: {} }, instructions, jsonSchemaValidator });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: availableTools(connection).map((tool) => listedTools.get(tool.name)!) }));
  // The calls of a batch run one after another, in order, each once the event loop has served what is waiting: run
  // together, a hundred recalls in one POST held the loop (and the database's connections) for seconds.
  let previous: Promise<unknown> = Promise.resolve();
  const withinBudget = answerBudget(connection);
  server.setRequestHandler(CallToolRequest, (request) => {
    // The SDK's check of tools/call has found params with a tool's name by now; the arguments are the tool's to read.
    const { name, arguments: args } = request.params as { name: string; arguments?: unknown };
    const turn = previous
      .then(nextTurn)
      .then(() => callTool(services, connection, name, args))
      .then(withinBudget);
    previous = turn.catch(() => undefined);
    return turn;
  });
  return server;
}

/**
 * Characters of JSON a request's tool answers may hold together. The transport writes a batch's answers as one
 * JSON text at once: a hundred recalls of a hundred long memories came to 84 MB, written in one hold of the event
 * loop of about half a second.
 */
export const MAX_ANSWER_CHARS = 8 * 1024 * 1024;

/**
 * Each answer of one request, measured as JSON in its own call's turn, passed on while the request's answers stay
 * within MAX_ANSWER_CHARS; past it, a call answers payload_too_large as its tool error instead, to be sent again.
 * The first answer always passes: a single call is bounded by its own route.
 */
function answerBudget(connection: ToolConnection): (answer: CallToolResult) => CallToolResult {
  // Most requests hold one call: the first answer is measured only once a second one follows it.
  let first: CallToolResult | undefined;
  let used = 0;
  return (answer) => {
    if (first === undefined) {
      first = answer;
      return answer;
    }
    if (used === 0) used = JSON.stringify(first).length;
    const size = JSON.stringify(answer).length;
    if (used + size > MAX_ANSWER_CHARS) {
      const message = `The answers of this request before this call already hold ${used.toLocaleString("en-US")} characters, and this call's would pass ${MAX_ANSWER_CHARS.toLocaleString("en-US")}: send it again in a request of its own.`;
      return toolError(new AppError("payload_too_large", message), connection.log);
    }
    used += size;
    return answer;
  };
}
