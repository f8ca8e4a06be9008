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

/** Paths that belong to the service: an unknown one answers the JSON 404, never the console's page. */
const servicePath = /^\/(v1|api|mcp)(\/|$)/;

/**
 * The built console at `/`: hashed assets cached for good, and the page itself for every other path a browser
 * asks for as HTML, so links into the console (`/memories/mem_…`) work on reload.
 */
export function consoleAssets(directory: string): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  const indexFile = join(directory, "index.html");
  router.use(
    "/assets",
    express.static(join(directory, "assets"), { immutable: true, maxAge: "365d", index: false, redirect: false, setHeaders: setSecurityHeaders }),
  );
  router.use((req, res, next) => {
    if ((req.method !== "GET" && req.method !== "HEAD") || servicePath.test(req.path) || req.path.startsWith("/assets/")) return next();
    if (req.accepts(["json", "html"]) !== "html") return next();
    setSecurityHeaders(res);
    res.setHeader("Cache-Control", "no-cache");
    res.sendFile(indexFile, (error) => (error ? next(error) : undefined));
  });
  return router;
}
