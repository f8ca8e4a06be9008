import { apiContract } from "@engram/contract";
import { initClient } from "@ts-rest/core";
import { ApiError } from "./api-error";

let csrfToken = "";

/** The session's CSRF token, sent on every request; browsers also send Origin, which the server checks first. */
export function rememberCsrfToken(token: string): void {
  csrfToken = token;
}

/** Typed calls to the `/api` routes on this origin, through the shared contract. */
export const api = initClient(apiContract, {
  baseUrl: "",
  baseHeaders: { "x-csrf-token": () => csrfToken },
  credentials: "same-origin",
  throwOnUnknownStatus: false,
});

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
  throw new ApiError(answer.status, answer.body);
}
