import { interfaceVersion } from "@engram/contract";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { z } from "zod/v4";
import { nextTurn } from "../domain/kernel/in-turns";
import { availableTools, callTool, type McpServices } from "./tool-calls";
import { listedTool, type ToolConnection } from "./tool-definition";
import { tools } from "./tools";

const listedTools = new Map(tools.map((tool) => [tool.name, listedTool(tool)]));

/**
 * tools/call with its arguments left unread here. Registered with the SDK's own schema, arguments that are not a
 * plain record to its validator (null, an array, an object with a key named "constructor") failed as an internal
 * error (-32603); read leniently first, the SDK's check of tools/call answers them as invalid params (-32602), the
 * protocol's code for a client's mistake. Each tool then reads its arguments against its route's schema.
 */
const CallToolRequest = CallToolRequestSchema.extend({ params: CallToolRequestSchema.shape.params.extend({ arguments: z.unknown().optional() }) });

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
  server.setRequestHandler(CallToolRequest, (request) => {
    const turn = previous.then(nextTurn).then(() => callTool(services, connection, request.params.name, request.params.arguments));
    previous = turn.catch(() => undefined);
    return turn;
  });
  return server;
}
