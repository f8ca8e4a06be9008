export { Engram, MemoryResource, type EngramOptions } from "./client";
export {
  APIConnectionError,
  AuthenticationError,
  ConflictError,
  EngramError,
  InternalServerError,
  InvalidRequestError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from "./errors";
export type {
  TControlBody as ControlBody,
  TEncodeBody as EncodeBody,
  TMemory as Memory,
  TProvenance as Provenance,
  TRetrieveBody as RetrieveBody,
  TRetrieveResponse as RetrieveResponse,
} from "@engram/contract";
