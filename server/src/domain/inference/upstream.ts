import type { TChatMessage, TErrorCode, TFinishReason } from "@engram/contract";
import type { ContextMemory } from "@engram/retrieval";
import { AppError } from "../kernel/errors";

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
  /**
   * Not sent upstream: the latest user turn, the memories in the context block, whether memory was searched at
   * all (not with X-Engram-Memory: off, nor for an assistant without search_memory), and whether to cite, for
   * the embedded responder.
   */
  grounding: { question: string; memories: GroundingMemory[]; memorySearched: boolean; citeSources: boolean };
}

export interface ModelAnswer {
  content: string;
  finishReason: TFinishReason;
}

/** One streamed piece of an answer: a content fragment, or how the answer ended. */
export type ModelEvent = { content: string } | { finishReason: TFinishReason };

/**
 * A model behind the gateway. Both methods reject with an UpstreamFailure (or another AppError) when the model
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

/** An upstream failure: the client sees the AppError; `detail` (status, upstream message) goes to the log. */
export class UpstreamFailure extends AppError {
  constructor(
    code: TErrorCode,
    message: string,
    readonly detail: Record<string, unknown>,
    retryAfter?: number,
  ) {
    super(code, message, null, retryAfter);
    this.name = "UpstreamFailure";
  }
}

/** The client disconnected; nobody is left to answer. */
export class ClientGone extends Error {
  constructor() {
    super("the client disconnected");
    this.name = "ClientGone";
  }
}
