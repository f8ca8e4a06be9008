import type { TApiFailure, TApiValidationFailure } from "@engram/contract";

export type ValidationProblem = TApiValidationFailure["validationErrors"][number];

/** A refused `/api` request: the stable code, the server's message, and each validation problem. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly validationErrors: ValidationProblem[];
  readonly retryAfter: number | null;

  constructor(status: number, body: unknown, cause?: unknown) {
    const failure = (body ?? {}) as Partial<TApiFailure & TApiValidationFailure>;
    const problems = Array.isArray(failure.validationErrors) ? failure.validationErrors : [];
    const message = failure.message ?? problems.map((problem) => problem.error).join("; ") ?? `The server answered ${status}.`;
    super(message || `The server answered ${status}.`, { cause });
    this.name = "ApiError";
    this.status = status;
    this.code = typeof failure.error === "string" ? failure.error : "unexpected_answer";
    this.validationErrors = problems;
    this.retryAfter = typeof failure.retryAfter === "number" ? failure.retryAfter : null;
  }
}

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;

/** A 4xx: the server understood and said no, so the same request will not fare better (429 aside, once waited for). */
export const isRefusal = (error: unknown): error is ApiError => isApiError(error) && error.status >= 400 && error.status < 500;
