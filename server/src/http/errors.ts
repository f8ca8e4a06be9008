import { errorCodes, type TErrorBody, type TErrorCode } from "@engram/contract";
import type { RequestValidationError } from "@ts-rest/express";
import type { ErrorRequestHandler, RequestHandler, Response } from "express";
import type { ZodError, ZodIssue } from "zod";
import { AppError } from "../domain/kernel/errors";
import { payloadTooLarge } from "./body";
import { named } from "./field-names";

export function errorBody(code: TErrorCode, message: string, param: string | null = null, retryAfter?: number): TErrorBody {
  return { error: { message, type: errorCodes[code].type, code, param, ...(retryAfter === undefined ? {} : { retry_after: retryAfter }) } };
}

/** The body of an AppError; anything else is an opaque internal error (the caller logs it). */
export function errorBodyOf(error: unknown): TErrorBody {
  if (error instanceof AppError) return errorBody(error.code, error.message, error.param, error.retryAfter);
  return errorBody("internal_error", "The server failed to handle this request; it has been logged.");
}

export function sendError(res: Response, error: AppError): void {
  if (error.retryAfter !== undefined) res.setHeader("Retry-After", String(error.retryAfter));
  res.status(errorCodes[error.code].status).json(errorBodyOf(error));
}

/** The documented error for the first problem zod found, naming the field at fault. */
export function fromZodIssue(issue: ZodIssue, where: "body" | "path" | "header"): AppError {
  const field = named(issue.path.join("."));
  const param = where === "header" ? headerName(field) : field || null;
  if (issue.code === "unrecognized_keys") {
    const key = named(issue.keys[0] ?? "");
    return new AppError("unknown_parameter", `Unknown field "${key}".`, named(field ? `${field}.${key}` : key));
  }
  if (issue.code === "invalid_type" && issue.received === "undefined") {
    return new AppError("missing_parameter", `${param ?? "body"} is required.`, param);
  }
  if (issue.code === "invalid_type" && field === "") {
    return new AppError("invalid_parameter", `The request body must be a JSON object (got ${issue.received}).`, null);
  }
  return new AppError("invalid_parameter", `${param}: ${issue.message}`, param);
}

function headerName(lowerCased: string): string {
  return lowerCased.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
}

/** How one surface writes an error: `/v1`'s `{ error: … }` body, or `/api`'s `{ success: false, … }`. */
export type SendError = (res: Response, error: AppError) => void;

/** The documented error for the first problem ts-rest's request validation found, never raw zod output. */
function requestValidationError(err: RequestValidationError): AppError {
  const sources: Array<[ZodError | null, "body" | "path" | "header"]> = [
    [err.pathParams, "path"],
    [err.headers, "header"],
    [err.query, "body"],
    [err.body, "body"],
  ];
  for (const [zodError, where] of sources) {
    const issue = zodError?.issues[0];
    if (issue) return fromZodIssue(issue, where);
  }
  return new AppError("invalid_parameter", "The request is invalid.");
}

export const requestValidationErrorHandlerFor =
  (send: SendError) =>
  (err: RequestValidationError, _req: unknown, res: Response): void =>
    send(res, requestValidationError(err));

export const notFoundHandlerFor =
  (send: SendError): RequestHandler =>
  (req, res) =>
    send(res, new AppError("route_not_found", `No route ${req.method} ${req.baseUrl}${req.path}.`));

/** The documented error for a failure of Express's routing or body reading, or null for anything else. */
export function requestErrorOf(error: unknown): AppError | null {
  const { type, code, status } = (error ?? {}) as { type?: string; code?: string; status?: number };
  // Express could not percent-decode a path parameter (a malformed escape, or bytes that are not UTF-8).
  if (error instanceof URIError && status === 400) return new AppError("invalid_parameter", "A path parameter is not validly percent-encoded UTF-8.");
  // body-parser's failures carry a `type`; zlib's (a corrupt or truncated compressed body) a `Z_…` code.
  if (type === "entity.parse.failed") return new AppError("invalid_json", "The request body is not valid JSON.");
  if (type === "entity.too.large") return payloadTooLarge((error as { limit: number }).limit);
  if (type === "encoding.unsupported" || type === "charset.unsupported") return new AppError("unsupported_media_type", "Send the body as UTF-8 JSON, uncompressed or with gzip or deflate.");
  if (code?.startsWith("Z_") || type === "request.aborted" || type === "request.size.invalid") return new AppError("invalid_json", "The request body could not be read or inflated.");
  return null;
}

/** Maps AppErrors and request failures to the documented answer; everything else unknown becomes an opaque 500. */
export const errorHandlerFor =
  (send: SendError): ErrorRequestHandler =>
  (error, req, res, _next) => {
    if (res.headersSent) return req.socket.destroy();
    // A body still arriving when the answer is an error is not drained: the connection closes after it.
    if (!req.complete) res.setHeader("Connection", "close");
    // The caller is told to retry, but an operator needs to see that the database failed, and why.
    if (error instanceof AppError && error.code === "service_unavailable") req.log.warn({ err: error.cause ?? error }, error.message);
    if (error instanceof AppError) return send(res, error);
    const known = requestErrorOf(error);
    if (known) return send(res, known);
    req.log.error({ err: error }, "unhandled error");
    send(res, new AppError("internal_error", "The server failed to handle this request; it has been logged."));
  };

/** The `/v1` surface's handlers. */
export const requestValidationErrorHandler = requestValidationErrorHandlerFor(sendError);
export const notFoundHandler = notFoundHandlerFor(sendError);
export const errorHandler = errorHandlerFor(sendError);
