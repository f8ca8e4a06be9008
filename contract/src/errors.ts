import { z } from "zod";

/** The published error types; every `/v1` error carries one of them. */
export const ZErrorType = z.enum([
  "authentication_error",
  "authorization_error",
  "invalid_request_error",
  "rate_limit_error",
  "model_error",
  "server_error",
]);
export type TErrorType = z.infer<typeof ZErrorType>;

/**
 * Every error code the service answers with, defined once with its status and type so the server,
 * the SDK and the OpenAPI document agree.
 */
export const errorCodes = {
  invalid_api_key: { status: 401, type: "authentication_error" },
  token_environment_required: { status: 401, type: "authentication_error" },
  insufficient_scope: { status: 403, type: "authorization_error" },
  agent_not_allowed: { status: 403, type: "authorization_error" },
  invalid_parameter: { status: 400, type: "invalid_request_error" },
  missing_parameter: { status: 400, type: "invalid_request_error" },
  unknown_parameter: { status: 400, type: "invalid_request_error" },
  invalid_json: { status: 400, type: "invalid_request_error" },
  agent_conflict: { status: 400, type: "invalid_request_error" },
  unsupported_media_type: { status: 415, type: "invalid_request_error" },
  payload_too_large: { status: 413, type: "invalid_request_error" },
  /** The HTTP parser refused the request itself (a broken request line or header): nothing was read. */
  malformed_request: { status: 400, type: "invalid_request_error" },
  headers_too_large: { status: 431, type: "invalid_request_error" },
  /** The request's headers, or the whole of it, did not arrive in time (a client sending slowly, or stalled). */
  request_timeout: { status: 408, type: "invalid_request_error" },
  /** An `Expect` header other than `100-continue`, which is all the server meets: nothing was read. */
  expectation_failed: { status: 417, type: "invalid_request_error" },
  memory_not_found: { status: 404, type: "invalid_request_error" },
  route_not_found: { status: 404, type: "invalid_request_error" },
  /** The path exists but not for this method (`/mcp` takes only POST). */
  method_not_allowed: { status: 405, type: "invalid_request_error" },
  invalid_state_transition: { status: 409, type: "invalid_request_error" },
  idempotency_key_reused: { status: 409, type: "invalid_request_error" },
  model_not_found: { status: 404, type: "invalid_request_error" },
  context_length_exceeded: { status: 400, type: "invalid_request_error" },
  rate_limit_exceeded: { status: 429, type: "rate_limit_error" },
  /** The upstream model refused the forwarded request as invalid (its message is passed on); do not retry. */
  upstream_rejected: { status: 400, type: "model_error" },
  /** The upstream answered something unusable (e.g. it refused the gateway's credentials, or sent no JSON). */
  upstream_error: { status: 500, type: "model_error" },
  /** The upstream is rate limited, down, or did not answer in time: retry after Retry-After. */
  upstream_rate_limited: { status: 503, type: "model_error" },
  upstream_unavailable: { status: 503, type: "model_error" },
  upstream_timeout: { status: 503, type: "model_error" },
  // The session-backed `/api` routes (people, assistants and their capabilities).
  not_signed_in: { status: 401, type: "authentication_error" },
  /** A wrong email and a wrong password answer alike. */
  invalid_credentials: { status: 401, type: "authentication_error" },
  /** Access tokens are for `/v1`; `/api` takes only a signed-in session. */
  token_not_accepted: { status: 401, type: "authentication_error" },
  permission_denied: { status: 403, type: "authorization_error" },
  /** An unsafe request whose Origin is another site's, or that carries neither Origin nor X-CSRF-Token. */
  cross_site_request: { status: 403, type: "authorization_error" },
  /** The signed-in person belongs to no organization, or not to the one named. */
  organization_not_found: { status: 404, type: "invalid_request_error" },
  assistant_not_found: { status: 404, type: "invalid_request_error" },
  capability_not_found: { status: 404, type: "invalid_request_error" },
  user_not_found: { status: 404, type: "invalid_request_error" },
  member_not_found: { status: 404, type: "invalid_request_error" },
  token_not_found: { status: 404, type: "invalid_request_error" },
  already_exists: { status: 409, type: "invalid_request_error" },
  /** A person already keeps as many personal assistants in the organization as one may. */
  assistant_limit_reached: { status: 409, type: "invalid_request_error" },
  /** The change would leave the organization without an owner. */
  last_owner: { status: 409, type: "invalid_request_error" },
  /** Another request changed the resource between this one's read and its write. */
  edit_conflict: { status: 409, type: "invalid_request_error" },
  /** If-Match names a version that is no longer current. */
  precondition_failed: { status: 412, type: "invalid_request_error" },
  /** The capability rules refused the update; the body lists every problem. */
  validation_failed: { status: 400, type: "invalid_request_error" },
  login_throttled: { status: 429, type: "rate_limit_error" },
  /** A reflection run is already in progress for this organization and environment. */
  run_in_progress: { status: 409, type: "invalid_request_error" },
  internal_error: { status: 500, type: "server_error" },
  service_unavailable: { status: 503, type: "server_error" },
} as const satisfies Record<string, { status: number; type: TErrorType }>;

export type TErrorCode = keyof typeof errorCodes;
export const ZErrorCode = z.enum(Object.keys(errorCodes) as [TErrorCode, ...TErrorCode[]]);

/** The error body of every `/v1` route: `{ error: { message, type, code, param? } }`. */
export const ZErrorBody = z.object({
  error: z.object({
    message: z.string(),
    type: ZErrorType,
    code: z.string(),
    /** The request field at fault, when one is. */
    param: z.string().nullable().optional(),
    /** Seconds to wait; present on 429 and repeats the Retry-After header. */
    retry_after: z.number().int().optional(),
  }),
});
export type TErrorBody = z.infer<typeof ZErrorBody>;

/** The error statuses every authenticated route may answer, declared once for the routers. */
export const commonErrorResponses = {
  400: ZErrorBody,
  401: ZErrorBody,
  403: ZErrorBody,
  413: ZErrorBody,
  415: ZErrorBody,
  429: ZErrorBody,
  500: ZErrorBody,
  /** The database is busy or unreachable: retry after Retry-After. */
  503: ZErrorBody,
} as const;
