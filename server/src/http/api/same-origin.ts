import type { Request, RequestHandler, Response } from "express";
import { AppError } from "../../domain/kernel/errors";
import type { SignedIn } from "../../domain/people/sessions";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function originAllowed(origin: string, req: Request, allowed: readonly string[] | null): boolean {
  if (allowed) return allowed.includes(origin);
  if (!URL.canParse(origin)) return false;
  // Without configured origins, the page must come from the host the request was sent to (any scheme: a TLS
  // proxy in front of the server turns https into http).
  return new URL(origin).host === req.headers.host;
}

/**
 * Another site must not be able to change anything with a signed-in person's cookie. Browsers send Origin on
 * every unsafe cross-site request: it must be ours. A client that sends no Origin (curl, a script) is no
 * browser another site controls, but must prove it read the session by echoing its X-CSRF-Token.
 */
export function requireSameOrigin(allowed: readonly string[] | null): RequestHandler {
  return (req, res: Response, next) => {
    if (SAFE_METHODS.has(req.method)) return next();
    if (req.headers["sec-fetch-site"] === "cross-site") return next(crossSite("a cross-site request"));
    const origin = req.headers.origin;
    if (origin !== undefined) return next(originAllowed(origin, req, allowed) ? undefined : crossSite(`Origin ${origin.slice(0, 100)}`));
    const signedIn = res.locals.signedIn as SignedIn | undefined;
    // Signing in uses no session's authority, so there is nothing for another site to ride on. (Mounted at
    // /api, req.path is relative to it.)
    if (!signedIn || req.baseUrl + req.path === "/api/auth/login") return next();
    if (req.headers["x-csrf-token"] === signedIn.csrfToken) return next();
    next(new AppError("cross_site_request", "Unsafe requests need an Origin header of this application, or the session's X-CSRF-Token (from GET /api/auth/me)."));
  };
}

const crossSite = (what: string) => new AppError("cross_site_request", `Refused ${what}: changes are accepted only from this application's own pages.`);
