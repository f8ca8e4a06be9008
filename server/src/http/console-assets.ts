import { join } from "node:path";
import express, { type Response, type Router } from "express";

/** The console runs only its own scripts and talks only to this origin; no other site may frame it. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

function setSecurityHeaders(res: Response): void {
  res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "same-origin");
}

/** The service's own prefixes: an unknown path under one answers the JSON 404, never the console's page. */
const servicePrefixes = ["v1", "api", "mcp"];
const servicePath = new RegExp(`^/(${servicePrefixes.join("|")})(/|$)`);

/** First segments that are never a console page, in any case: the service's prefixes and the assets folder. */
const reservedSegments = new Set([...servicePrefixes, "assets"]);

// Control characters, backslashes (a browser reads them as slashes) and `;` (path parameters to some proxies).
const ODD_CHARACTER = /[\u0000-\u001f\u007f\\;]/;

/**
 * Whether `path` is one the console's router may own. Anything a proxy, a browser or a later router could read
 * as another path is not: a service prefix in another case or percent-encoded, an encoded slash, a dot or
 * empty segment, a backslash, bytes that do not decode. Those keep the JSON 404, so no spelling of a service
 * path is ever answered with the page.
 */
function isConsolePath(path: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return false;
  }
  if (ODD_CHARACTER.test(decoded)) return false;
  const segments = decoded.split("/").slice(1);
  const last = segments.length - 1;
  if (segments.some((segment, i) => segment === "." || segment === ".." || (segment === "" && i < last))) return false;
  return !reservedSegments.has(segments[0]!.toLowerCase());
}

/**
 * The built console at `/`: hashed assets cached for good, and the page itself for every other path a browser
 * asks for as HTML, so links into the console (`/memories/mem_…`) work on reload. Whatever it answers for a
 * GET or HEAD outside the service, its 404s included, carries the security headers.
 */
export function consoleAssets(directory: string): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  const indexFile = join(directory, "index.html");
  router.use((req, res, next) => {
    if ((req.method === "GET" || req.method === "HEAD") && !servicePath.test(req.path)) setSecurityHeaders(res);
    next();
  });
  router.use(
    "/assets",
    express.static(join(directory, "assets"), { immutable: true, maxAge: "365d", index: false, redirect: false }),
  );
  router.use((req, res, next) => {
    if ((req.method !== "GET" && req.method !== "HEAD") || !isConsolePath(req.path)) return next();
    // The same address answers a browser with the page and a JSON client with the 404: caches must keep both.
    res.vary("Accept");
    if (req.accepts(["json", "html"]) !== "html") return next();
    res.setHeader("Cache-Control", "no-cache");
    res.sendFile(indexFile, (error) => (error ? next(error) : undefined));
  });
  return router;
}
