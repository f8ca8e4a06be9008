import { contract } from "@engram/contract";
import { initClient } from "@ts-rest/core";
import { APIPromise } from "../core/api-promise";
import { responseInfo } from "../core/response-info";
import { createFetcher, type TransportConfig } from "./transport";

/** The contract's typed client, sending every call through the SDK's fetcher (retries, timeouts, errors). */
export function createHttp(baseUrl: string, token: string, transport: TransportConfig) {
  return initClient(contract, {
    baseUrl,
    baseHeaders: { authorization: `Bearer ${token}` },
    api: createFetcher(transport),
    // The fetcher throws for every error status, so what reaches the caller is always a success.
    throwOnUnknownStatus: false,
  });
}
export type Http = ReturnType<typeof createHttp>;

type Answer = { status: number; body: unknown; headers: Headers };

/** The body type of a route's successful answers, as the contract declares it. */
export type SuccessBody<R extends Answer> = Extract<R, { status: 200 | 201 }>["body"];

/** Turns a ts-rest call into an APIPromise of its success body. */
export function apiCall<R extends Answer>(call: Promise<R>): APIPromise<SuccessBody<R>> {
  return new APIPromise(call.then((answer) => ({ data: answer.body as SuccessBody<R>, response: responseInfo(answer.status, answer.headers) })));
}
