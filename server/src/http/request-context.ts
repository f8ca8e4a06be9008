import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";
import type { Logger } from "pino";
import { pinoHttp } from "pino-http";

const CALLER_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is sane, else a new one), echoes it in
 * the response, and binds it to every log line written for the request.
 */
export function requestContext(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId(req, res) {
      const given = req.headers["x-request-id"];
      const id = typeof given === "string" && CALLER_REQUEST_ID.test(given) ? given : `req_${randomUUID().replaceAll("-", "")}`;
      res.setHeader("x-request-id", id);
      return id;
    },
    customAttributeKeys: { reqId: "requestId" },
    // Bind only the id to req.log, so every line written for the request carries it.
    quietReqLogger: true,
    serializers: {
      req: (req) => ({ method: req.method, url: req.url }),
      res: (res) => ({ statusCode: res.statusCode }),
    },
  });
}

export function requestIdOf(req: { id: unknown }): string {
  return String(req.id);
}
