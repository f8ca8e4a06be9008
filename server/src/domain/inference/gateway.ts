import {
  inferenceLimits,
  interfaceVersion,
  type TChatCompletion,
  type TChatCompletionChunk,
  type THealth,
  type TModelList,
  type TParsedChatCompletionRequest,
  type TUsage,
} from "@engram/contract";
import { type Caller, requireScope } from "../access/caller";
import type { Clock } from "../kernel/clock";
import { AppError } from "../kernel/errors";
import { newId } from "../kernel/ids";
import type { MemoryService } from "../memory/memory-service";
import type { Store } from "../store";
import type { AssistantRepository } from "../assistants/ports";
import { type ChatProfile, chatProfileOf, defaultChatProfile } from "./assistant-profile";
import { injectMemory } from "./memory-context";
import { countTokens } from "./model-tokens";
import type { ModelEvent, ModelRequest, Upstream } from "./upstream";

/** The advertised model's `created`: when the gateway's model id was introduced. */
const MODEL_CREATED = Date.UTC(2026, 10, 22) / 1000;

/** A validated chat request, grounded in memory and ready for the model. */
export interface PreparedChat {
  request: ModelRequest;
  memoriesUsed: number;
  promptTokens: number;
  includeUsage: boolean;
  /** The assistant the request was served as, with the capabilities it had then; null without one. */
  assistant: ChatProfile["assistant"];
}

/** OpenAI's id shape, `chatcmpl-…`. */
const completionId = () => newId("chatcmpl").replace("_", "-");

function usageOf(promptTokens: number, content: string): TUsage {
  const completion = countTokens(content);
  return { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion };
}

/**
 * The OpenAI-compatible gateway: checks the request against the advertised model and context, grounds
 * it in the caller's memory, asks the upstream (a model, or the embedded responder), and shapes the
 * answer as OpenAI's chat completions API does, whatever the upstream's own ids and model names.
 */
export function inferenceGateway(deps: {
  store: Pick<Store, "ping">;
  memories: Pick<MemoryService, "retrieveForInference">;
  assistants: Pick<AssistantRepository, "find">;
  /** The one model id the gateway advertises and accepts. */
  modelId: string;
  upstream: Upstream;
  clock: Clock;
}) {
  const { memories, upstream, modelId, clock: now } = deps;
  const seconds = () => Math.floor(now().getTime() / 1000);

  /** Another organization's assistant is as absent as a missing one. */
  async function profileOf(orgId: string, assistantId: string): Promise<ChatProfile> {
    const assistant = await deps.assistants.find(orgId, assistantId);
    if (!assistant) throw new AppError("assistant_not_found", `No assistant ${assistantId.slice(0, 100)} in this organization.`, "X-Engram-Assistant");
    return chatProfileOf(assistant);
  }

  async function* chunks(events: AsyncIterable<ModelEvent>, prepared: PreparedChat): AsyncGenerator<TChatCompletionChunk> {
    const base = { id: completionId(), object: "chat.completion.chunk" as const, created: seconds(), model: modelId };
    const usage = prepared.includeUsage ? { usage: null } : {};
    yield { ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }], ...usage };
    let content = "";
    let finishReason: "stop" | "length" | "content_filter" = "stop";
    for await (const event of events) {
      if ("finishReason" in event) {
        finishReason = event.finishReason;
        continue;
      }
      if (prepared.includeUsage) content += event.content;
      yield { ...base, choices: [{ index: 0, delta: { content: event.content }, finish_reason: null }], ...usage };
    }
    yield { ...base, choices: [{ index: 0, delta: {}, finish_reason: finishReason }], ...usage };
    if (prepared.includeUsage) yield { ...base, choices: [], usage: usageOf(prepared.promptTokens, content) };
  }

  return {
    upstreamKind: upstream.kind,

    models(): TModelList {
      return {
        object: "list",
        data: [{ id: modelId, object: "model", created: MODEL_CREATED, owned_by: "engram", context_length: inferenceLimits.contextLength }],
      };
    },

    /** Liveness and dependencies; 503 only when the database does not answer (memory cannot work then). */
    async health(): Promise<{ status: 200 | 503; body: THealth }> {
      const [database, model] = await Promise.all([
        deps.store.ping().then(
          () => "ok" as const,
          () => "unavailable" as const,
        ),
        upstream.kind === "embedded" ? Promise.resolve("embedded" as const) : upstream.check().then((ok) => (ok ? ("ok" as const) : ("unavailable" as const))),
      ]);
      const healthy = database === "ok" && model !== "unavailable";
      return {
        status: database === "ok" ? 200 : 503,
        body: { status: healthy ? "ok" : "degraded", database, upstream: model, model: modelId, version: interfaceVersion },
      };
    },

    /**
     * Checks scope and model, then grounds the conversation in the memory of the caller's boundary (the
     * agent's own and the organization's shared memories when an agent is named). `memory: false` skips
     * retrieval (the request's X-Engram-Memory: off). Named by `assistantId`, the request is served as that
     * assistant of the caller's organization, with the capabilities it has at this moment.
     */
    async prepare(
      caller: Caller,
      agent: string | null,
      body: TParsedChatCompletionRequest,
      options: { memory: boolean; assistantId?: string },
    ): Promise<PreparedChat> {
      requireScope(caller, "inference:chat");
      if (body.model !== modelId) {
        throw new AppError("model_not_found", `The model "${body.model}" does not exist; this gateway serves "${modelId}" (see GET /v1/models).`, "model");
      }
      const profile = options.assistantId === undefined ? defaultChatProfile : await profileOf(caller.orgId, options.assistantId);
      const memorySearched = options.memory && profile.memory;
      const injection = await injectMemory({
        messages: profile.instructions ? [profile.instructions, ...body.messages] : body.messages,
        maxTokens: body.max_tokens,
        retrieve: memorySearched ? (input) => memories.retrieveForInference(caller, agent, input) : null,
        retrieveLimit: profile.memoryLimit,
        now: now(),
      });
      return {
        request: {
          messages: injection.messages,
          max_tokens: body.max_tokens,
          temperature: body.temperature,
          top_p: body.top_p,
          frequency_penalty: body.frequency_penalty,
          presence_penalty: body.presence_penalty,
          stop: body.stop,
          ...(body.user === undefined ? {} : { user: body.user }),
          grounding: { question: injection.question, memories: injection.memories, memorySearched, citeSources: profile.citeSources },
        },
        memoriesUsed: injection.memories.length,
        promptTokens: injection.promptTokens,
        includeUsage: body.stream_options?.include_usage === true,
        assistant: profile.assistant,
      };
    },

    async complete(prepared: PreparedChat, signal: AbortSignal): Promise<TChatCompletion> {
      const answer = await upstream.complete(prepared.request, signal);
      return {
        id: completionId(),
        object: "chat.completion",
        created: seconds(),
        model: modelId,
        choices: [{ index: 0, message: { role: "assistant", content: answer.content }, finish_reason: answer.finishReason }],
        usage: usageOf(prepared.promptTokens, answer.content),
      };
    },

    /**
     * Resolves once the model has accepted the request (so its refusals are still HTTP errors), with the
     * chunks to send: the role first, each piece as it arrives, the finish_reason, then usage when asked.
     */
    async stream(prepared: PreparedChat, signal: AbortSignal): Promise<AsyncGenerator<TChatCompletionChunk>> {
      return chunks(await upstream.stream(prepared.request, signal), prepared);
    },
  };
}

export type InferenceGateway = ReturnType<typeof inferenceGateway>;
