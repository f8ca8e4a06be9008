import { z } from "zod";

/** Any `/api` failure other than a validation one: `error` is a stable code, `message` says what to do. */
export const ZApiFailure = z.object({
  success: z.literal(false),
  error: z.string(),
  message: z.string(),
  /** Seconds to wait; present on 429 and repeats the Retry-After header. */
  retryAfter: z.number().int().optional(),
});
export type TApiFailure = z.infer<typeof ZApiFailure>;

export const ZValidationProblem = z.object({ capabilityId: z.string().optional(), error: z.string() });

/** A refused request body: every problem at once, one entry each. */
export const ZApiValidationFailure = z.object({
  success: z.literal(false),
  error: z.string(),
  validationErrors: z.array(ZValidationProblem),
});
export type TApiValidationFailure = z.infer<typeof ZApiValidationFailure>;

/** The error statuses every `/api` route may answer, declared once. */
export const apiErrorResponses = {
  400: z.union([ZApiValidationFailure, ZApiFailure]),
  401: ZApiFailure,
  403: ZApiFailure,
  404: ZApiFailure,
  409: ZApiFailure,
  412: ZApiFailure,
  413: ZApiFailure,
  415: ZApiFailure,
  429: ZApiFailure,
  500: ZApiFailure,
  503: ZApiFailure,
} as const;

export const ZSuccess = z.object({ success: z.literal(true) });
