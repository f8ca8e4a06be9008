import type { TScope } from "@engram/contract";
import type { CallToolResult, Tool, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import type { z } from "zod";
import { zodToJsonSchema } from "zod-to-json-schema";
import type { Caller } from "../domain/access/caller";
import type { EventIngestion } from "../domain/events/ingestion";
import type { MemoryService } from "../domain/memory/memory-service";
import type { RouteGroup } from "../domain/rate-limits/policy";

/** Who a tool call acts for: resolved once per HTTP request, like a route's caller and agent. */
export interface ToolConnection {
  caller: Caller;
  agent: string | null;
  log: Logger;
}

/** The domain services the tools call: the same ones the HTTP routes call. */
export interface ToolServices {
  memories: MemoryService;
  events: EventIngestion;
}

/** One MCP tool: what it is called and allowed by, the contract's schemas it reads and answers, and what it does. */
export interface ToolDefinition<TInput extends z.AnyZodObject = z.AnyZodObject> {
  name: string;
  title: string;
  description: string;
  /** The scope of the route it mirrors: tokens without it neither see nor call the tool. */
  scope: TScope;
  /** The rate-limit group of the route it mirrors; each call counts once there. */
  rateLimitGroup: RouteGroup;
  /** False for tools whose route has no agent form (events belong to the whole organization). */
  agentForm: boolean;
  annotations: ToolAnnotations;
  input: TInput;
  output: z.AnyZodObject;
  call(services: ToolServices, connection: ToolConnection, input: z.output<TInput>): Promise<CallToolResult>;
}

/** Keeps each definition's input type checked against its handler, then lists them alike. */
export const defineTool = <TInput extends z.AnyZodObject>(tool: ToolDefinition<TInput>) => tool as unknown as ToolDefinition;

/**
 * The schema as JSON Schema, inlined (no `$ref`s: not every client resolves them). Inputs show what a caller
 * may send (defaults, optional fields); outputs what the service answers.
 */
function jsonSchemaOf(schema: z.ZodTypeAny, side: "input" | "output"): Tool["inputSchema"] {
  return zodToJsonSchema(schema, { strictUnions: true, pipeStrategy: side, $refStrategy: "none" }) as Tool["inputSchema"];
}

/** The tool as tools/list describes it; made once per tool, since the schemas never change. */
export function listedTool(tool: ToolDefinition): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchemaOf(tool.input, "input"),
    outputSchema: jsonSchemaOf(tool.output, "output"),
    annotations: { title: tool.title, openWorldHint: false, ...tool.annotations },
  };
}

/**
 * Descriptions for a schema's fields, for the model reading the tool list. Only the description changes:
 * every rule stays the contract's.
 */
export function describeFields<T extends z.AnyZodObject>(schema: T, descriptions: { [K in keyof T["shape"]]?: string }): T {
  const shape: Record<string, z.ZodTypeAny> = { ...schema.shape };
  for (const [field, description] of Object.entries(descriptions)) shape[field] = shape[field]!.describe(description as string);
  return schema.extend(shape) as T;
}

/** A successful call: the service's answer as structured content, and as JSON text for clients that read only text. */
export function jsonResult(body: object, meta?: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: body as Record<string, unknown>, ...(meta ? { _meta: meta } : {}) };
}
