import { type IncomingHttpHeaders, request } from "node:http";
import { ZApiFailure } from "@engram/contract";
import type { SessionResponse } from "@engram/test-support";
import { expect } from "vitest";
import { type ApplicationConfig, defaultApplicationConfig } from "../../src/application-config";
import { DEFAULT_SESSION_POLICY, type SessionPolicy } from "../../src/domain/people/sessions";

/** The `/api` failure shape with this status and code (and a message matching `message`, when given). */
export function expectApiFailure(res: SessionResponse, status: number, code: string, message?: RegExp): void {
  expect({ status: res.status, error: res.body?.error }, JSON.stringify(res.body)).toEqual({ status, error: code });
  expect(ZApiFailure.safeParse(res.body).success, JSON.stringify(res.body)).toBe(true);
  if (message) expect(res.body.message).toMatch(message);
}

/** The application settings with some changed, the session policy merged field by field. */
export function applicationWith(change: Partial<Omit<ApplicationConfig, "sessions">> & { sessions?: Partial<SessionPolicy> } = {}): ApplicationConfig {
  return { ...defaultApplicationConfig, ...change, sessions: { ...DEFAULT_SESSION_POLICY, ...change.sessions } };
}

/** A server clock a test moves by hand; it starts at the next whole hour, so fixed windows start with it. */
export function manualClock() {
  const start = Math.ceil(Date.now() / 3_600_000) * 3_600_000;
  let at = start;
  return {
    start,
    now: () => new Date(at),
    /** Sets the clock `ms` after its start. */
    set: (ms: number) => {
      at = start + ms;
    },
    advance: (ms: number) => {
      at += ms;
    },
  };
}

/** The `engram_session` Set-Cookie line of a response, or undefined. */
export const sessionSetCookie = (headers: Headers) => headers.getSetCookie().find((line) => line.startsWith("engram_session="));

/** The cookie's value in a Set-Cookie line. */
export const cookieValueOf = (setCookie: string) => setCookie.slice("engram_session=".length).split(";")[0]!;

/** A request carrying exactly the Cookie header given, as a replaying attacker or a careless script would send it. */
export async function withCookie(baseUrl: string, path: string, cookie: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { cookie, ...init.headers };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(baseUrl + path, { method: init.method ?? "GET", headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

export const session = (value: string) => `engram_session=${value}`;

/** Plain node:http, for the headers fetch will not send as given (Host). */
export function httpRequest(
  baseUrl: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: any }> {
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  const headers = { ...init.headers, ...(body === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) }) };
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, baseUrl), { method: init.method ?? "GET", headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}
