import { errorCodes, type TApiFailure, type TApiValidationFailure } from "@engram/contract";
import type { Response } from "express";
import { CapabilityValidationError } from "../../domain/assistants/assistant-service";
import type { AppError } from "../../domain/kernel/errors";
import { errorHandlerFor, notFoundHandlerFor, requestValidationErrorHandlerFor } from "../errors";

/**
 * `{ success: false, error: <code>, message }`, with Retry-After (header and `retryAfter`) on 429 and 503; a
 * refused capability update lists every problem instead.
 */
function sendFailure(res: Response, error: AppError): void {
  if (error instanceof CapabilityValidationError) {
    const body: TApiValidationFailure = { success: false, error: "validation_failed", validationErrors: [...error.problems] };
    return void res.status(400).json(body);
  }
  if (error.retryAfter !== undefined) res.setHeader("Retry-After", String(error.retryAfter));
  const body: TApiFailure = { success: false, error: error.code, message: error.message, ...(error.retryAfter === undefined ? {} : { retryAfter: error.retryAfter }) };
  res.status(errorCodes[error.code].status).json(body);
}

/** The `/api` surface's handlers: the same mapping as `/v1`, the capabilities routes' body shapes. */
export const apiRequestValidationErrorHandler = requestValidationErrorHandlerFor(sendFailure);
export const apiNotFoundHandler = notFoundHandlerFor(sendFailure);
export const apiErrorHandler = errorHandlerFor(sendFailure);
