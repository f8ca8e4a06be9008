import { parse } from "cookie";
import type { Request, Response } from "express";
import type { ApplicationConfig } from "../../application-config";

export const SESSION_COOKIE = "engram_session";
/** The cookie goes only to the session-backed routes. */
const COOKIE_PATH = "/api";

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Secure, unless configured otherwise or the request is plain HTTP to this machine (local development). */
function secure(req: Request, setting: ApplicationConfig["cookieSecure"]): boolean {
  if (setting !== "auto") return setting === "always";
  const hostname = (req.headers.host ?? "").replace(/:\d+$/, "");
  return req.secure || !LOOPBACK.test(hostname);
}

export function sessionSecretOf(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const value = parse(header)[SESSION_COOKIE];
  // A secret is 43 base64url characters; anything else is no session at all.
  return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
}

export function setSessionCookie(req: Request, res: Response, secret: string, expires: Date, setting: ApplicationConfig["cookieSecure"]): void {
  res.cookie(SESSION_COOKIE, secret, { httpOnly: true, sameSite: "lax", secure: secure(req, setting), path: COOKIE_PATH, expires });
}

export function clearSessionCookie(req: Request, res: Response, setting: ApplicationConfig["cookieSecure"]): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: "lax", secure: secure(req, setting), path: COOKIE_PATH });
}
