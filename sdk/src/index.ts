export { Engram } from "./client";
export type { EngramOptions, RequestOptions, WriteOptions } from "./core/options";
export { APIPromise, type WithResponse } from "./core/api-promise";
export type { RateLimitInfo, ResponseInfo } from "./core/response-info";
export { MemoryResource } from "./resources/memory";
export { EventsResource, type EventOptions } from "./resources/events";
export { Chat, ChatCompletions, type ChatCompletionCreateParams, type ChatCompletionStreamParams, type ChatOptions } from "./resources/chat";
export { Models } from "./resources/models";
export { Stream } from "./core/streaming";
export {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  ConflictError,
  EngramError,
  InternalServerError,
  InvalidRequestError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from "./core/errors";
export type {
  TChatCompletion as ChatCompletion,
  TChatCompletionChunk as ChatCompletionChunk,
  TChatCompletionRequest as ChatCompletionRequest,
  TChatMessage as ChatMessage,
  TControlBody as ControlBody,
  TEncodeBody as EncodeBody,
  TErrorBody as ErrorBody,
  TEventBody as EventBody,
  TEventResult as EventResult,
  THealth as Health,
  THistoryPageQuery as HistoryPageQuery,
  TMemory as Memory,
  TMemoryKind as MemoryKind,
  TMemoryState as MemoryState,
  TModel as Model,
  TModelList as ModelList,
  TProvenance as Provenance,
  TRetrieveBody as RetrieveBody,
  TRetrieveResponse as RetrieveResponse,
} from "@engram/contract";
