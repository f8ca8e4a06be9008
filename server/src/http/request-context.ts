import { randomUUID } from "node:crypto";
import { IncomingMessage } from "node:http";
import type { RequestHandler } from "express";
import type { Logger } from "pino";

declare module "node:http" {
  interface IncomingMessage {
    /** The request's id: the caller's sane `X-Request-Id`, else a new one. */
    id: string;
    /** The server's logger bound to this request's id (and to whatever a later step binds). */
    readonly log: Logger;
  }
}

const CALLER_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What a request's log lines are bound to; the bound logger itself is made only when a line is written. */
interface LogContext {
  logger: Logger;
  bindings: Record<string, unknown>;
  bound: Logger | undefined;
}

const LOG_CONTEXT = Symbol("engram.log-context");
type WithLogContext = { [LOG_CONTEXT]?: LogContext };

// One accessor for every request, rather than a property defined on each: defining properties per request
// made request objects slow to read for every later step (docs/performance.md).
Object.defineProperty(IncomingMessage.prototype, "log", {
  configurable: true,
  get(this: WithLogContext): Logger {
    const context = this[LOG_CONTEXT];
    if (!context) throw new Error("request logged before its context was set");
    return (context.bound ??= context.logger.child(context.bindings));
  },
});

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
    (req as WithLogContext)[LOG_CONTEXT] = { logger, bindings: { requestId: id }, bound: undefined };
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

/** Binds `fields` to every later log line of the request, without making a logger until one is written. */
export function bindToLog(req: object, fields: Record<string, unknown>): void {
  const context = (req as WithLogContext)[LOG_CONTEXT];
  if (!context) return;
  if (context.bound) context.bound = context.bound.child(fields);
  else Object.assign(context.bindings, fields);
}

export function requestIdOf(req: { id: unknown }): string {
  return String(req.id);
}
