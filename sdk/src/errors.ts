import type { TErrorBody } from "@engram/contract";

/** An error answered by the Engram API, with everything needed to report or handle it. */
export class EngramError extends Error {
  /** The API's error type, e.g. `invalid_request_error`. */
  readonly type: string;
  /** The API's error code, e.g. `memory_not_found`. */
  readonly code: string;
  /** The request field at fault, when one is. */
  readonly param: string | null;
  /** The server's request id (`x-request-id`), for support and logs. */
  readonly requestId: string | null;

  constructor(
    readonly status: number,
    body: TErrorBody | undefined,
    readonly headers: Headers,
  ) {
    super(body?.error.message ?? `Engram answered HTTP ${status}`);
    this.name = new.target.name;
    this.type = body?.error.type ?? "server_error";
    this.code = body?.error.code ?? "unknown_error";
    this.param = body?.error.param ?? null;
    this.requestId = headers.get("x-request-id");
  }
}

export class InvalidRequestError extends EngramError {}
export class AuthenticationError extends EngramError {}
export class PermissionDeniedError extends EngramError {}
export class NotFoundError extends EngramError {}
export class ConflictError extends EngramError {}
export class RateLimitError extends EngramError {
  /** Seconds to wait before retrying, from `Retry-After`. */
  get retryAfter(): number | null {
    const value = Number(this.headers.get("retry-after"));
    return Number.isFinite(value) && value > 0 ? value : null;
  }
}
export class InternalServerError extends EngramError {}

/** The network failed before any answer arrived. */
export class APIConnectionError extends Error {
  constructor(cause: unknown) {
    super(`Could not reach Engram: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = "APIConnectionError";
  }
}

const classByStatus: Record<number, typeof EngramError> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: InvalidRequestError,
  415: InvalidRequestError,
  429: RateLimitError,
};

export function errorFromResponse(status: number, body: unknown, headers: Headers): EngramError {
  const ErrorClass = classByStatus[status] ?? (status >= 500 ? InternalServerError : EngramError);
  const errorBody = typeof body === "object" && body !== null && "error" in body ? (body as TErrorBody) : undefined;
  return new ErrorClass(status, errorBody, headers);
}
