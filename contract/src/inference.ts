import { initContract } from "@ts-rest/core";
import { z } from "zod";
import { ZAgentSlug } from "./common";
import { ZErrorBody } from "./errors";

/** Constants of the inference gateway: the advertised context window, parameter defaults and bounds. */
export const inferenceLimits = {
  /** The advertised model's context window: prompt (with injected memory) plus max_tokens never exceed it. */
  contextLength: 8192,
  defaultMaxTokens: 2048,
  defaultTemperature: 1,
  defaultTopP: 1,
  defaultPenalty: 0,
  maxStopSequences: 4,
  maxStopSequenceLength: 200,
  maxMessages: 512,
  maxNameLength: 64,
} as const;

/** The client-facing model identifier the gateway advertises unless configured otherwise. */
export const DEFAULT_MODEL_ID = "engram-memory-1";

export const ZChatRole = z.enum(["system", "user", "assistant"]);
export type TChatRole = z.infer<typeof ZChatRole>;

export const ZChatMessage = z
  .object({
    role: ZChatRole,
    content: z.string(),
    /** An optional participant name, as OpenAI's API allows. */
    name: z.string().min(1).max(inferenceLimits.maxNameLength).optional(),
  })
  .strict();
export type TChatMessage = z.infer<typeof ZChatMessage>;

const ZStop = z.union([
  z.string().min(1).max(inferenceLimits.maxStopSequenceLength),
  z.array(z.string().min(1).max(inferenceLimits.maxStopSequenceLength)).max(inferenceLimits.maxStopSequences),
]);

/**
 * The chat request (the published parameter table, plus OpenAI's `stream_options` and `user`). Defaults are
 * applied here, so what the gateway forwards upstream is what the table promises whatever the upstream's
 * own defaults are. Unknown parameters are rejected.
 */
export const ZChatCompletionRequest = z
  .object({
    model: z.string().min(1).max(200),
    messages: z
      .array(ZChatMessage)
      .min(1)
      .max(inferenceLimits.maxMessages)
      .refine((messages) => messages.some((m) => m.role === "user"), "must contain at least one user message"),
    temperature: z.number().min(0).max(2).default(inferenceLimits.defaultTemperature),
    max_tokens: z.number().int().min(1).max(inferenceLimits.contextLength).default(inferenceLimits.defaultMaxTokens),
    top_p: z.number().min(0).max(1).default(inferenceLimits.defaultTopP),
    frequency_penalty: z.number().min(-2).max(2).default(inferenceLimits.defaultPenalty),
    presence_penalty: z.number().min(-2).max(2).default(inferenceLimits.defaultPenalty),
    /** Up to 4 sequences; generation stops before the first one produced. */
    stop: ZStop.nullable().default(null),
    stream: z.boolean().default(false),
    /** With `include_usage`, a streamed answer ends with a chunk carrying `usage` and no choices. */
    stream_options: z.object({ include_usage: z.boolean().optional() }).strict().nullable().optional(),
    /** An end-user identifier, forwarded upstream for abuse monitoring. */
    user: z.string().max(256).optional(),
  })
  .strict();
export type TChatCompletionRequest = z.input<typeof ZChatCompletionRequest>;
export type TParsedChatCompletionRequest = z.output<typeof ZChatCompletionRequest>;

export const ZUsage = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});
export type TUsage = z.infer<typeof ZUsage>;

/** `stop` when the answer ended naturally or at a stop sequence, `length` when max_tokens cut it. */
export const ZFinishReason = z.enum(["stop", "length", "content_filter"]);
export type TFinishReason = z.infer<typeof ZFinishReason>;

export const ZChatCompletion = z.object({
  id: z.string(),
  object: z.literal("chat.completion"),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: z.object({ role: z.literal("assistant"), content: z.string() }),
      finish_reason: ZFinishReason,
    }),
  ),
  usage: ZUsage,
});
export type TChatCompletion = z.infer<typeof ZChatCompletion>;

/**
 * One Server-Sent Event of a streamed answer (`data: <json>`; the stream ends with `data: [DONE]`). The
 * first chunk's delta carries the role, the last choice chunk the finish_reason; with
 * `stream_options.include_usage` every chunk has `usage: null` but a final one with no choices.
 */
export const ZChatCompletionChunk = z.object({
  id: z.string(),
  object: z.literal("chat.completion.chunk"),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      delta: z.object({ role: z.literal("assistant").optional(), content: z.string().optional() }),
      finish_reason: ZFinishReason.nullable(),
    }),
  ),
  usage: ZUsage.nullable().optional(),
});
export type TChatCompletionChunk = z.infer<typeof ZChatCompletionChunk>;

export const ZModel = z.object({
  id: z.string(),
  object: z.literal("model"),
  created: z.number().int(),
  owned_by: z.string(),
  context_length: z.number().int(),
});
export type TModel = z.infer<typeof ZModel>;

export const ZModelList = z.object({ object: z.literal("list"), data: z.array(ZModel) });
export type TModelList = z.infer<typeof ZModelList>;

export const ZCheckStatus = z.enum(["ok", "unavailable"]);

/**
 * Liveness (the process answers) and whether its dependencies answer. `status` is `ok` when everything
 * answers, `degraded` otherwise; the HTTP status is 503 only when the database does not answer.
 */
export const ZHealth = z.object({
  status: z.enum(["ok", "degraded"]),
  database: ZCheckStatus,
  /** `embedded` when no upstream is configured and the embedded responder answers. */
  upstream: z.enum(["ok", "unavailable", "embedded"]),
  model: z.string(),
  version: z.string(),
});
export type THealth = z.infer<typeof ZHealth>;

const ZInferenceHeaders = z.object({
  /** The agent whose boundary the answer's memory comes from (plain path form only). */
  "x-service-agent": ZAgentSlug.optional(),
  /** `off` skips memory retrieval and injection for this request. */
  "x-engram-memory": z.enum(["on", "off"]).optional(),
  /**
   * Serve the request as this assistant of the organization (its id, `asst_…`): with the capabilities it has
   * enabled now. Without search_memory no memory is injected; without cite_sources answers cite nothing.
   */
  "x-engram-assistant": z.string().min(1).max(100).optional(),
});

const c = initContract();

const chatRoute = {
  method: "POST",
  headers: ZInferenceHeaders,
  body: ZChatCompletionRequest,
  responses: { 200: ZChatCompletion, 404: ZErrorBody, 503: ZErrorBody },
  description:
    "With `stream: true` the answer is `text/event-stream`: `data: <chat.completion.chunk>` lines ending with `data: [DONE]`. " +
    "The header `X-Engram-Memories-Used` reports how many memories were injected.",
  metadata: {
    example: {
      model: DEFAULT_MODEL_ID,
      messages: [
        { role: "system", content: "You are the on-call assistant." },
        { role: "user", content: "How do we deploy payments-api?" },
      ],
      temperature: 0.2,
      max_tokens: 512,
    },
  },
} as const;

/** The OpenAI-compatible gateway; every route needs a token (chat needs `inference:chat`). */
export const inferenceContract = c.router(
  {
    chatCompletionsForAgent: {
      ...chatRoute,
      path: "/agents/:agentSlug/chat/completions",
      pathParams: z.object({ agentSlug: ZAgentSlug }),
      summary: "Chat completion grounded in one agent's memory boundary",
    },
    chatCompletions: { ...chatRoute, path: "/chat/completions", summary: "Chat completion grounded in the organization's memory" },
    listModels: { method: "GET", path: "/models", responses: { 200: ZModelList }, summary: "The advertised model" },
  },
  { pathPrefix: "/v1" },
);

/** Liveness, open to anyone: no token needed. */
export const healthContract = c.router(
  {
    check: {
      method: "GET",
      path: "/health",
      responses: { 200: ZHealth, 503: ZHealth },
      summary: "Liveness, and whether the database and the upstream model answer (no authentication)",
      metadata: { public: true },
    },
  },
  { pathPrefix: "/v1" },
);
