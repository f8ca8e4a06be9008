import { createParser } from "eventsource-parser";
import { type Dispatcher, request as undiciRequest } from "undici";
import type { TFinishReason } from "@engram/contract";
import { ClientGone, type ModelEvent, type ModelRequest, type Upstream, UpstreamFailure } from "../../domain/inference/upstream";
import { AppError } from "../../domain/kernel/errors";
import type { UpstreamConfig } from "./config";

/** Seconds to suggest when the upstream is down or slow and says nothing itself. */
const DEFAULT_RETRY_AFTER_SECONDS = 1;
const HEALTH_TIMEOUT_MS = 2000;
const MAX_UPSTREAM_MESSAGE = 500;

type UpstreamResponse = Dispatcher.ResponseData;

function header(response: UpstreamResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The upstream's own Retry-After (seconds or an HTTP date) or retry-after-ms, as whole seconds ≥ 1. */
function retryAfterOf(response: UpstreamResponse): number {
  const ms = Number(header(response, "retry-after-ms"));
  if (Number.isFinite(ms) && ms > 0) return Math.max(1, Math.ceil(ms / 1000));
  const value = header(response, "retry-after");
  if (value) {
    const seconds = /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : (Date.parse(value) - Date.now()) / 1000;
    if (Number.isFinite(seconds)) return Math.max(1, Math.ceil(seconds));
  }
  return DEFAULT_RETRY_AFTER_SECONDS;
}

async function upstreamMessage(response: UpstreamResponse): Promise<string> {
  const text = await response.body.text().catch(() => "");
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === "string") return message.slice(0, MAX_UPSTREAM_MESSAGE);
  } catch {
    // Not JSON: fall through to the raw text.
  }
  return text.slice(0, MAX_UPSTREAM_MESSAGE);
}

/** Maps an upstream error status to the gateway's: rate limited or down -> 503 with Retry-After. */
async function failureOf(response: UpstreamResponse): Promise<UpstreamFailure> {
  const status = response.statusCode;
  const message = await upstreamMessage(response);
  const detail = { upstreamStatus: status, upstreamMessage: message };
  if (status === 429) {
    return new UpstreamFailure("upstream_rate_limited", "The upstream model is rate limited; retry later.", detail, retryAfterOf(response));
  }
  if (status >= 500) {
    return new UpstreamFailure("upstream_unavailable", `The upstream model is unavailable (status ${status}); retry later.`, detail, retryAfterOf(response));
  }
  if (status === 400 || status === 404 || status === 413 || status === 422) {
    return new UpstreamFailure("upstream_rejected", `The upstream model rejected the request: ${message || `status ${status}`}`, detail);
  }
  return new UpstreamFailure("upstream_error", `The upstream model refused the gateway (status ${status}).`, detail);
}

/** OpenAI's finish reasons that this gateway's answers can carry; anything else (tool calls…) reads as stop. */
function finishReasonOf(value: unknown): TFinishReason {
  return value === "length" || value === "content_filter" ? value : "stop";
}

const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

/** The AppError for an exception thrown while talking to the upstream (or ClientGone when the client left). */
function failureFrom(error: unknown, clientSignal: AbortSignal, timeoutMs: number): Error {
  if (error instanceof AppError) return error;
  if (clientSignal.aborted) return new ClientGone();
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  if (code && TIMEOUT_CODES.has(code)) {
    return new UpstreamFailure("upstream_timeout", `The upstream model did not answer within ${timeoutMs} ms; retry later.`, { code }, DEFAULT_RETRY_AFTER_SECONDS);
  }
  return new UpstreamFailure("upstream_unavailable", "The upstream model cannot be reached; retry later.", { code, cause: message }, DEFAULT_RETRY_AFTER_SECONDS);
}

interface CompletionBody {
  choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }>;
}

interface ChunkBody {
  error?: { message?: unknown };
  choices?: Array<{ delta?: { content?: unknown }; finish_reason?: unknown }>;
}

/**
 * Any OpenAI-compatible chat completions API (OpenAI, vLLM, Ollama, llama.cpp server, …). The augmented
 * request goes to `{baseUrl}/chat/completions` under the upstream's model name; streamed answers are
 * parsed with eventsource-parser and passed on piece by piece. undici's `request` rather than fetch
 * avoids fetch's stream wrappers on every body; its headers and body timeouts make `timeoutMs` the
 * limit for the answer to begin and for each streamed piece to follow the last.
 */
export function openAiCompatibleUpstream(config: UpstreamConfig): Upstream {
  const base = config.baseUrl.replace(/\/+$/, "");
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  const timeouts = { headersTimeout: config.timeoutMs, bodyTimeout: config.timeoutMs };

  function bodyOf(request: ModelRequest, stream: boolean): string {
    const { grounding: _grounding, stop, user, ...sampling } = request;
    return JSON.stringify({ model: config.model, ...sampling, ...(stop === null ? {} : { stop }), ...(user === undefined ? {} : { user }), stream });
  }

  async function send(request: ModelRequest, stream: boolean, signal: AbortSignal): Promise<UpstreamResponse> {
    let response: UpstreamResponse;
    try {
      response = await undiciRequest(`${base}/chat/completions`, {
        method: "POST",
        headers: stream ? { ...headers, accept: "text/event-stream" } : headers,
        body: bodyOf(request, stream),
        signal,
        ...timeouts,
      });
    } catch (error) {
      throw failureFrom(error, signal, config.timeoutMs);
    }
    if (response.statusCode >= 200 && response.statusCode < 300) return response;
    let failure: UpstreamFailure;
    try {
      failure = await failureOf(response);
    } catch (error) {
      throw failureFrom(error, signal, config.timeoutMs);
    }
    throw failure;
  }

  async function* events(response: UpstreamResponse, signal: AbortSignal): AsyncGenerator<ModelEvent> {
    const decoder = new TextDecoder();
    const pending: string[] = [];
    const parser = createParser({ onEvent: (event) => pending.push(event.data) });
    const chunks = response.body[Symbol.asyncIterator]();
    let finished = false;
    try {
      for (;;) {
        let read: IteratorResult<Buffer>;
        try {
          read = await chunks.next();
        } catch (error) {
          throw failureFrom(error, signal, config.timeoutMs);
        }
        if (read.done) break;
        parser.feed(decoder.decode(read.value, { stream: true }));
        for (const data of pending.splice(0)) {
          if (data === "[DONE]") {
            finished = true;
            return;
          }
          let chunk: ChunkBody;
          try {
            chunk = JSON.parse(data) as ChunkBody;
          } catch {
            throw new UpstreamFailure("upstream_error", "The upstream model sent a malformed stream.", { data: data.slice(0, MAX_UPSTREAM_MESSAGE) });
          }
          if (chunk.error) {
            const message = typeof chunk.error.message === "string" ? chunk.error.message.slice(0, MAX_UPSTREAM_MESSAGE) : "";
            throw new UpstreamFailure("upstream_error", `The upstream model failed mid-answer${message ? `: ${message}` : "."}`, { upstreamMessage: message });
          }
          const choice = chunk.choices?.[0];
          if (typeof choice?.delta?.content === "string" && choice.delta.content !== "") yield { content: choice.delta.content };
          if (choice?.finish_reason) yield { finishReason: finishReasonOf(choice.finish_reason) };
        }
      }
      finished = true;
    } finally {
      // Stopped early (the client left, or a failure): close the upstream request too.
      if (!finished) response.body.destroy();
    }
  }

  return {
    kind: "openai-compatible",

    async complete(request, signal) {
      const response = await send(request, false, signal);
      let body: CompletionBody;
      try {
        body = (await response.body.json()) as CompletionBody;
      } catch (error) {
        if (signal.aborted || (error as { code?: string }).code) throw failureFrom(error, signal, config.timeoutMs);
        throw new UpstreamFailure("upstream_error", "The upstream model answered with something other than JSON.", {});
      }
      const choice = body.choices?.[0];
      const content = choice?.message?.content;
      if (!choice || (typeof content !== "string" && content !== null && content !== undefined)) {
        throw new UpstreamFailure("upstream_error", "The upstream model's answer has no message.", {});
      }
      return { content: typeof content === "string" ? content : "", finishReason: finishReasonOf(choice.finish_reason) };
    },

    async stream(request, signal) {
      return events(await send(request, true, signal), signal);
    },

    async check() {
      try {
        const timeout = Math.min(HEALTH_TIMEOUT_MS, config.timeoutMs);
        const response = await undiciRequest(`${base}/models`, { headers, headersTimeout: timeout, bodyTimeout: timeout, signal: AbortSignal.timeout(timeout) });
        await response.body.dump();
        return response.statusCode >= 200 && response.statusCode < 300;
      } catch {
        return false;
      }
    },
  };
}
