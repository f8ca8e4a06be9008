import type { TChatCompletion, TChatCompletionChunk, TChatCompletionRequest } from "@engram/contract";
import { APIPromise } from "../core/api-promise";
import type { RequestOptions } from "../core/options";
import { Stream } from "../core/streaming";
import { apiCall, type Http } from "../internal/http";
import type { OpenAnswer } from "../internal/transport";

/** A chat request that answers with one completion. */
export type ChatCompletionCreateParams = Omit<TChatCompletionRequest, "stream"> & { stream?: false };
/** A chat request that answers with a stream of chunks. */
export type ChatCompletionStreamParams = Omit<TChatCompletionRequest, "stream"> & { stream: true };

export interface ChatOptions extends RequestOptions {
  /** False answers without retrieving and injecting organization memory (`X-Engram-Memory: off`). */
  memory?: boolean;
  /**
   * Answer as this assistant of the organization (its id, `asst_…`; `X-Engram-Assistant`), with the capabilities
   * people have enabled for it: memory only with search_memory, citations only with cite_sources.
   */
  assistant?: string;
}

/** `chat.completions` of the OpenAI-compatible gateway, grounded in organization (or the agent's) memory. */
export class ChatCompletions {
  /** @internal Made by the Engram client. */
  constructor(
    private readonly http: Http,
    private readonly agentSlug: string | undefined,
  ) {}

  /**
   * A chat completion. With `stream: true` it resolves, once the answer starts, to a Stream of
   * `chat.completion.chunk`s to read with `for await`; breaking out of the loop closes the connection.
   * Retries stop once a stream has started.
   */
  create(body: ChatCompletionCreateParams, options?: ChatOptions): APIPromise<TChatCompletion>;
  create(body: ChatCompletionStreamParams, options?: ChatOptions): APIPromise<Stream<TChatCompletionChunk>>;
  create(body: TChatCompletionRequest, options?: ChatOptions): APIPromise<TChatCompletion | Stream<TChatCompletionChunk>>;
  create(body: TChatCompletionRequest, options: ChatOptions = {}): APIPromise<TChatCompletion | Stream<TChatCompletionChunk>> {
    const stream = body.stream === true;
    const headers = {
      ...(options.memory === false ? { "x-engram-memory": "off" as const } : {}),
      ...(options.assistant === undefined ? {} : { "x-engram-assistant": options.assistant }),
    };
    const args = { body, headers, requestOptions: options, stream };
    const answer = apiCall(
      this.agentSlug ? this.http.inference.chatCompletionsForAgent({ ...args, params: { agentSlug: this.agentSlug } }) : this.http.inference.chatCompletions(args),
    );
    // A streamed answer's body is the still-open response (see the transport), read by the Stream.
    return stream ? answer.map((open) => new Stream<TChatCompletionChunk>(open as unknown as OpenAnswer)) : answer;
  }
}

/** `chat` of the gateway. */
export class Chat {
  readonly completions: ChatCompletions;

  /** @internal Made by the Engram client. */
  constructor(http: Http, agentSlug: string | undefined) {
    this.completions = new ChatCompletions(http, agentSlug);
  }
}
