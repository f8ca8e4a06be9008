import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";
import type { Logger } from "pino";

declare module "node:http" {
  interface IncomingMessage {
    /** The request's id: the caller's sane `X-Request-Id`, else a new one. */
    id: string;
    /** The server's logger bound to this request's id (and to whatever a later step binds). */
    log: Logger;
  }
}

const CALLER_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is sane, else a new one), echoes it in
 * the response, binds it to every log line written for the request, and logs each finished request at
 * `info`. The bound logger is made only when a line is written: most requests write none, and a child
 * logger per request was a tenth of a pass-through chat's CPU (docs/performance.md).
 */
export function requestContext(logger: Logger): RequestHandler {
  const logsRequests = logger.isLevelEnabled("info");
  return (req, res, next) => {
    const given = req.headers["x-request-id"];
    const id = typeof given === "string" && CALLER_REQUEST_ID.test(given) ? given : `req_${randomUUID().replaceAll("-", "")}`;
    req.id = id;
    res.setHeader("x-request-id", id);
    const bindings: Record<string, unknown> = { requestId: id };
    let log: Logger | undefined;
    Object.defineProperty(req, "log", {
      get: () => (log ??= logger.child(bindings)),
      set: (bound: Logger) => void (log = bound),
      configurable: true,
    });
    pendingBindings.set(req, (fields) => (log ? (log = log.child(fields)) : Object.assign(bindings, fields)));
    if (logsRequests) {
      const started = performance.now();
      const finished = (msg: string) => () => {
        const fields = { req: { method: req.method, url: req.originalUrl }, res: { statusCode: res.statusCode }, responseTime: Math.round(performance.now() - started) };
        if (res.statusCode >= 500) req.log.error(fields, msg);
        else req.log.info(fields, msg);
      };
      res.once("finish", finished("request completed"));
      res.once("close", () => res.writableFinished || finished("request aborted")());
    }
    next();
  };
}

const pendingBindings = new WeakMap<object, (fields: Record<string, unknown>) => void>();

/** Binds `fields` to every later log line of the request, without making a logger until one is written. */
export function bindToLog(req: object, fields: Record<string, unknown>): void {
  pendingBindings.get(req)?.(fields);
}

export function requestIdOf(req: { id: unknown }): string {
  return String(req.id);
}
