import type { TChatMessage, TFinishReason } from "@engram/contract";
import type { ContextMemory } from "@engram/retrieval";

/** The memories an answer is grounded in, most useful first, as the injected context block lists them. */
export type GroundingMemory = ContextMemory;

/** What the gateway asks a model for: the augmented conversation and the resolved sampling parameters. */
export interface ModelRequest {
  messages: TChatMessage[];
  max_tokens: number;
  temperature: number;
  top_p: number;
  frequency_penalty: number;
  presence_penalty: number;
  stop: string | string[] | null;
  user?: string;
  /** Not sent upstream: the latest user turn and the memories in the context block, for the embedded responder. */
  grounding: { question: string; memories: GroundingMemory[] };
}

export interface ModelAnswer {
  content: string;
  finishReason: TFinishReason;
}

/** One streamed piece of an answer: a content fragment, or how the answer ended. */
export type ModelEvent = { content: string } | { finishReason: TFinishReason };

/**
 * A model behind the gateway. Both methods reject with an AppError (model_error codes) when the model
 * cannot answer; `stream` resolves only once the model has accepted the request, so such errors still
 * become an HTTP status, and the iterable then throws if the model fails mid-answer. Aborting `signal`
 * (the client went away) cancels the model's work.
 */
export interface Upstream {
  readonly kind: "openai-compatible" | "embedded";
  complete(request: ModelRequest, signal: AbortSignal): Promise<ModelAnswer>;
  stream(request: ModelRequest, signal: AbortSignal): Promise<AsyncIterable<ModelEvent>>;
  /** Whether the model answers now (the health check). */
  check(): Promise<boolean>;
}

export interface UpstreamConfig {
  /** The OpenAI-compatible API's base URL, e.g. https://api.openai.com/v1 or http://localhost:11434/v1. */
  baseUrl: string;
  apiKey: string | null;
  /** The upstream's own model name, sent in place of the advertised id. */
  model: string;
  /** How long to wait for the upstream's answer to begin, and then between streamed pieces. */
  timeoutMs: number;
}

/** OpenAI's finish reasons that this gateway's answers can carry; anything else (tool calls…) reads as stop. */
export function finishReasonOf(value: unknown): TFinishReason {
  return value === "length" || value === "content_filter" ? value : "stop";
}
