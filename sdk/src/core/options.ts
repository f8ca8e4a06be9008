/** How to reach Engram and how patient to be. */
export interface EngramOptions {
  /** Where the Engram server is; defaults to `ENGRAM_BASE_URL`, else `http://localhost:8787`. */
  baseUrl?: string;
  /** An organization access token (`acm_…`); defaults to `ENGRAM_TOKEN`, else `ACM_TOKEN`. */
  token?: string;
  /** Act inside this agent's boundary by default (the agent path forms). */
  agent?: string;
  /**
   * How many times a failed call is sent again (connection errors, timeouts, 408, 409 other than a reused
   * idempotency key, 429 and 5xx). Default 2; 0 turns retries off.
   */
  maxRetries?: number;
  /**
   * How long one attempt may take, in milliseconds, before it fails with APITimeoutError (and is retried).
   * Default 60,000. A stream is timed until its answer starts, not while it is read.
   */
  timeoutMs?: number;
  /** A fetch implementation, e.g. to add a proxy or instrumentation; defaults to the global fetch. */
  fetch?: typeof fetch;
}

/** Options for one call; each overrides the client's own for that call only. */
export interface RequestOptions {
  /** Retries for this call (see EngramOptions.maxRetries). */
  maxRetries?: number;
  /** Milliseconds one attempt of this call may take. */
  timeoutMs?: number;
  /** Aborts the call, including any wait between retries; it then rejects with APIUserAbortError. */
  signal?: AbortSignal;
  /** Extra headers, e.g. `x-request-id` to follow a request through your logs and Engram's. */
  headers?: Record<string, string>;
}

/** Options for encode: it also carries an idempotency key (events take EventOptions). */
export interface WriteOptions extends RequestOptions {
  /**
   * Sent as `Idempotency-Key`, and the same on every retry of this call; a new UUID when omitted. Send the same
   * key again (for 24 hours) to make a repeated write return the original answer instead of writing twice.
   */
  idempotencyKey?: string;
}

export const defaults = { baseUrl: "http://localhost:8787", maxRetries: 2, timeoutMs: 60_000 } as const;
