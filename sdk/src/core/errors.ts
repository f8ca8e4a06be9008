import type { TErrorBody, TErrorCode, TErrorType } from "@engram/contract";
import { retryAfterMs } from "../internal/retry-policy";

/** The root of every error the SDK throws, so `catch (e) { if (e instanceof EngramError) … }` catches them all. */
export class EngramError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** What went wrong with one API call: an answer with an error status, or (subclasses) no answer at all. */
export class APIError extends EngramError {
  /** The HTTP status; undefined when no answer arrived. */
  readonly status: number | undefined;
  /** The answer's headers; undefined when no answer arrived. */
  readonly headers: Headers | undefined;
  /** The API's error type, e.g. `invalid_request_error`. */
  readonly type: TErrorType | (string & {}) | null;
  /** The API's error code, e.g. `memory_not_found`. */
  readonly code: TErrorCode | (string & {}) | null;
  /** The request field at fault, when one is. */
  readonly param: string | null;
  /** The server's request id (`x-request-id`), for support and logs. */
  readonly requestId: string | null;
  /** The error object of the body as the API sent it. */
  readonly error: TErrorBody["error"] | undefined;

  constructor(status: number | undefined, body: unknown, headers: Headers | undefined, message?: string, options?: { cause?: unknown }) {
    const error = errorObjectOf(body);
    super(message ?? error?.message ?? `Engram answered HTTP ${status}`, options);
    this.status = status;
    this.headers = headers;
    this.error = error;
    this.type = error?.type ?? null;
    this.code = error?.code ?? null;
    this.param = error?.param ?? null;
    this.requestId = headers?.get("x-request-id") ?? null;
  }

  /** The error class for an answer's status: a 404 becomes a NotFoundError, and so on. */
  static fromResponse(status: number, body: unknown, headers: Headers): APIError {
    const ErrorClass = classByStatus[status] ?? (status >= 500 ? InternalServerError : APIError);
    return new ErrorClass(status, body, headers);
  }
}

/** An error answer: status and headers are always there. */
class APIStatusError extends APIError {
  declare readonly status: number;
  declare readonly headers: Headers;
}

/** 400 (and 413, 415, 422): the request itself is wrong; sending it again will not help. */
export class InvalidRequestError extends APIStatusError {}
/** 401: the token is missing, unknown, revoked, or not bound to an environment. */
export class AuthenticationError extends APIStatusError {}
/** 403: the token lacks a scope, or may not act for this agent. */
export class PermissionDeniedError extends APIStatusError {}
/** 404: no such memory (or route) inside the caller's boundary. */
export class NotFoundError extends APIStatusError {}
/** 409: an invalid state transition, or an idempotency key reused with a different request. */
export class ConflictError extends APIStatusError {}
/** 5xx: the server failed; the SDK has already retried it. */
export class InternalServerError extends APIStatusError {}

/** 429: too many requests in this window. */
export class RateLimitError extends APIStatusError {
  /** Seconds to wait before trying again, from `retry-after-ms`, `Retry-After` or the body; null when not given. */
  get retryAfter(): number | null {
    const ms = retryAfterMs(this.headers);
    if (ms !== null) return ms / 1000;
    return this.error?.retry_after ?? null;
  }
}

/** No answer arrived: the connection failed or was reset. */
export class APIConnectionError extends APIError {
  constructor(options: { message?: string; cause?: unknown } = {}) {
    super(undefined, undefined, undefined, options.message ?? connectionMessage(options.cause), { cause: options.cause });
  }
}

/** No answer arrived within `timeoutMs`. */
export class APITimeoutError extends APIConnectionError {
  constructor(timeoutMs: number) {
    super({ message: `Engram did not answer within ${timeoutMs} ms` });
  }
}

/** The caller aborted the request through its `signal`. Never retried. */
export class APIUserAbortError extends APIError {
  constructor() {
    super(undefined, undefined, undefined, "The request was aborted");
  }
}

const classByStatus: Record<number, typeof APIError> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: InvalidRequestError,
  415: InvalidRequestError,
  422: InvalidRequestError,
  429: RateLimitError,
};

function errorObjectOf(body: unknown): TErrorBody["error"] | undefined {
  if (typeof body !== "object" || body === null || !("error" in body)) return undefined;
  const error = (body as { error: unknown }).error;
  return typeof error === "object" && error !== null ? (error as TErrorBody["error"]) : undefined;
}

function connectionMessage(cause: unknown): string {
  // undici puts the useful part (ECONNREFUSED, ECONNRESET…) in the cause of its "fetch failed".
  const detail = (cause as { cause?: { message?: string } })?.cause?.message ?? (cause as Error)?.message;
  return detail ? `Could not reach Engram: ${detail}` : "Could not reach Engram";
}
