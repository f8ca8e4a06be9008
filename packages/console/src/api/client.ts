import { apiContract } from "@engram/contract";
import { initClient } from "@ts-rest/core";
import { ApiError } from "./api-error";

let csrfToken = "";
let sessionEnded: () => void = () => {};

/** The session's CSRF token, sent on every request; browsers also send Origin, which the server checks first. */
export function rememberCsrfToken(token: string): void {
  csrfToken = token;
}

/** What to do when any call learns that the session ended (signed out elsewhere, expired): a query, a change, a dialog's action. */
export function whenSessionEnds(listener: () => void): void {
  sessionEnded = listener;
}

type Params = Record<string, unknown>;

/**
 * ts-rest puts path parameters into the path as given: each is encoded here, so an id taken from the address
 * bar stays one segment of its own route (a `\`, `?` or `#` in it cannot send the request to another one).
 */
function encodingPathParams<T extends object>(client: T): T {
  const encoded = (params: Params) => Object.fromEntries(Object.entries(params).map(([name, value]) => [name, encodeURIComponent(String(value))]));
  return Object.fromEntries(
    Object.entries(client).map(([name, entry]) => [
      name,
      typeof entry === "function"
        ? (args?: { params?: Params }) => entry(args?.params ? { ...args, params: encoded(args.params) } : args)
        : encodingPathParams(entry as object),
    ]),
  ) as T;
}

/** Typed calls to the `/api` routes on this origin, through the shared contract. */
export const api = encodingPathParams(
  initClient(apiContract, {
    baseUrl: "",
    baseHeaders: { "x-csrf-token": () => csrfToken },
    credentials: "same-origin",
    throwOnUnknownStatus: false,
  }),
);

type Answer = { status: number; body: unknown };
type Success<T extends Answer> = Extract<T, { status: 200 | 201 | 202 }>["body"];

/** The body of a successful answer; any other answer becomes an ApiError carrying the server's code and message. */
export async function ok<T extends Answer>(request: Promise<T>): Promise<Success<T>> {
  let answer: T;
  try {
    answer = await request;
  } catch (cause) {
    throw new ApiError(0, { error: "network_error", message: "The Engram server could not be reached. Check that it is running." }, cause);
  }
  if (answer.status >= 200 && answer.status < 300) return answer.body as Success<T>;
  const error = new ApiError(answer.status, answer.body);
  // Only this code means the session is gone; a 401 for a wrong password (invalid_credentials) does not.
  if (error.code === "not_signed_in") sessionEnded();
  throw error;
}
