import type { ApiFetcherArgs } from "@ts-rest/core";
import { APIConnectionError, APIError, APITimeoutError, APIUserAbortError } from "../core/errors";
import type { RequestOptions } from "../core/options";
import { isRetryableStatus, retryDelayMs } from "./retry-policy";

export interface TransportConfig {
  fetch: typeof fetch;
  maxRetries: number;
  timeoutMs: number;
}

/** What every SDK call passes through ts-rest to the fetcher, besides the request itself. */
export interface CallArgs {
  requestOptions?: RequestOptions;
  /** Hand back a successful answer's open body (an SSE stream) instead of reading it. */
  stream?: boolean;
  /** Error statuses the route answers with a body of its own rather than as failures (health's 503). */
  answerStatuses?: number[];
}

/** A successful answer whose body is still open, for the caller to read as a stream. */
export interface OpenAnswer {
  response: Response;
  /** Aborting it closes the connection. */
  controller: AbortController;
}

export interface RawAnswer {
  status: number;
  /** The parsed JSON body, or an OpenAnswer for streams. */
  body: unknown;
  headers: Headers;
}

type Attempt = { answer: RawAnswer } | { error: APIError };

/**
 * The fetcher ts-rest sends every call through. One call is up to `maxRetries + 1` attempts over the same
 * method, URL, headers (Idempotency-Key included) and body; an error answer is thrown as its typed APIError.
 */
export function createFetcher(config: TransportConfig) {
  return async (args: ApiFetcherArgs & CallArgs): Promise<RawAnswer> => {
    const options = args.requestOptions ?? {};
    const maxRetries = options.maxRetries ?? config.maxRetries;
    const headers = { ...args.headers, ...lowerCaseKeys(options.headers ?? {}) };
    for (let retry = 0; ; retry++) {
      const attempt = await attemptOnce(config, args, headers, options);
      if ("answer" in attempt) return attempt.answer;
      const delay = retry < maxRetries && isRetryable(attempt.error) ? retryDelayMs(retry, attempt.error.headers) : null;
      if (delay === null) throw attempt.error;
      await sleep(delay, options.signal);
    }
  };
}

function isRetryable(error: APIError): boolean {
  if (error instanceof APIConnectionError) return true;
  return error.status !== undefined && isRetryableStatus(error.status, error.code);
}

async function attemptOnce(config: TransportConfig, args: ApiFetcherArgs & CallArgs, headers: Record<string, string>, options: RequestOptions): Promise<Attempt> {
  const signal = options.signal;
  if (signal?.aborted) throw new APIUserAbortError();
  const timeoutMs = options.timeoutMs ?? config.timeoutMs;
  const controller = new AbortController();
  const abortFromCaller = () => controller.abort();
  signal?.addEventListener("abort", abortFromCaller, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  let streaming = false;
  try {
    const response = await config.fetch(args.path, { method: args.method, headers, body: args.body, signal: controller.signal });
    if (args.stream && response.ok) {
      // From here on the caller reads the body; it is not retried, and the timeout no longer applies.
      streaming = true;
      const open: OpenAnswer = { response, controller };
      return { answer: { status: response.status, body: open, headers: response.headers } };
    }
    const body = parseBody(await response.text(), response.headers.get("content-type"));
    if (response.ok || args.answerStatuses?.includes(response.status)) return { answer: { status: response.status, body, headers: response.headers } };
    return { error: APIError.fromResponse(response.status, body, response.headers) };
  } catch (cause) {
    if (signal?.aborted) throw new APIUserAbortError();
    if (timedOut) return { error: new APITimeoutError(timeoutMs) };
    return { error: new APIConnectionError({ cause }) };
  } finally {
    clearTimeout(timer);
    if (!streaming) signal?.removeEventListener("abort", abortFromCaller);
  }
}

function parseBody(text: string, contentType: string | null): unknown {
  if (text === "") return undefined;
  if (!contentType?.includes("json")) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** Waits at least `ms` (timers may fire a little early, and a Retry-After must never be cut short). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new APIUserAbortError());
    const deadline = performance.now() + ms;
    const onAbort = () => {
      clearTimeout(timer);
      reject(new APIUserAbortError());
    };
    const wake = () => {
      const left = deadline - performance.now();
      if (left > 0) {
        timer = setTimeout(wake, Math.ceil(left));
        return;
      }
      signal?.removeEventListener("abort", onAbort);
      resolve();
    };
    let timer = setTimeout(wake, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
