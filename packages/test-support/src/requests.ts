import { contract } from "@engram/contract";
import { initClient } from "@ts-rest/core";

/** The contract's own typed client, checking every response body against the contract. */
export function apiClient(baseUrl: string, token: string, headers: Record<string, string> = {}) {
  return initClient(contract, {
    baseUrl,
    baseHeaders: { authorization: `Bearer ${token}`, ...headers },
    validateResponse: true,
    throwOnUnknownStatus: true,
  });
}

/** Plain HTTP, for requests the typed client would refuse to make. */
export async function rawRequest(
  baseUrl: string,
  path: string,
  init: { method?: string; token?: string; body?: string; contentType?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers["content-type"] = init.contentType ?? "application/json";
  const response = await fetch(baseUrl + path, { method: init.method ?? "POST", headers, body: init.body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}
