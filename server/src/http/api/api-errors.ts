import { errorCodes, type TApiFailure, type TApiValidationFailure } from "@engram/contract";
import type { RequestValidationError } from "@ts-rest/express";
import type { ErrorRequestHandler, RequestHandler, Response } from "express";
import type { ZodError } from "zod";
import { CapabilityValidationError } from "../../domain/assistants/assistant-service";
import { AppError } from "../../domain/kernel/errors";
import { fromZodIssue, requestErrorOf } from "../errors";

/** `{ success: false, error: <code>, message }`, with Retry-After (header and `retryAfter`) on 429 and 503. */
function sendFailure(res: Response, error: AppError): void {
  if (error.retryAfter !== undefined) res.setHeader("Retry-After", String(error.retryAfter));
  const body: TApiFailure = { success: false, error: error.code, message: error.message, ...(error.retryAfter === undefined ? {} : { retryAfter: error.retryAfter }) };
  res.status(errorCodes[error.code].status).json(body);
}

function sendValidationFailure(res: Response, problems: Readonly<TApiValidationFailure["validationErrors"]>): void {
  const body: TApiValidationFailure = { success: false, error: "validation_failed", validationErrors: [...problems] };
  res.status(400).json(body);
}

/** ts-rest's request validation failures on `/api`, in the same shape (never raw zod output). */
export function apiRequestValidationErrorHandler(err: RequestValidationError, _req: unknown, res: Response): void {
  const sources: Array<[ZodError | null, "body" | "path" | "header"]> = [
    [err.pathParams, "path"],
    [err.headers, "header"],
    [err.query, "body"],
    [err.body, "body"],
  ];
  for (const [zodError, where] of sources) {
    const issue = zodError?.issues[0];
    if (issue) return sendFailure(res, fromZodIssue(issue, where));
  }
  sendFailure(res, new AppError("invalid_parameter", "The request is invalid."));
}

export const apiNotFoundHandler: RequestHandler = (req, res) => {
  sendFailure(res, new AppError("route_not_found", `No route ${req.method} ${req.path}.`));
};

/** The `/api` twin of the `/v1` error handler: the same mapping, the capabilities routes' body shapes. */
export const apiErrorHandler: ErrorRequestHandler = (error, req, res, _next) => {
  if (res.headersSent) return req.socket.destroy();
  if (!req.complete) res.setHeader("Connection", "close");
  if (error instanceof CapabilityValidationError) return sendValidationFailure(res, error.problems);
  if (error instanceof AppError && error.code === "service_unavailable") req.log.warn({ err: error.cause ?? error }, error.message);
  if (error instanceof AppError) return sendFailure(res, error);
  const known = requestErrorOf(error);
  if (known) return sendFailure(res, known);
  req.log.error({ err: error }, "unhandled error");
  sendFailure(res, new AppError("internal_error", "The server failed to handle this request; it has been logged."));
};
