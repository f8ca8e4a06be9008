import { isUtf8 } from "node:buffer";
import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type RequestHandler } from "express";
import typeIs from "type-is";
import { AppError } from "../domain/kernel/errors";
import { bodyProblemError } from "./input-checks";
import { jsonBytesProblem } from "./json-bytes";

/** Request bodies above this are refused before parsing: a chat's messages or an MCP batch may come near it. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The most a memory or event route reads. Such a body is at most 8,000 characters of text, a few short fields
 * and 16 KiB of metadata: under 150 KiB of JSON even with every character sent as a `\uXXXX` escape. Parsing
 * a mebibyte of JSON holds the event loop for tens of milliseconds, so these routes refuse one from its length.
 */
export const MAX_RECORD_BODY_BYTES = 256 * 1024;

/** No route takes a body on these methods: one sent is ignored, never read or parsed. */
const METHODS_WITHOUT_BODY = new Set(["GET", "HEAD", "DELETE", "OPTIONS"]);

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers["content-length"];
  return headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/** Memory and event routes: `/v1/memory`, its agent forms and `/v1/memory/events`. */
const RECORD_ROUTES = /^\/v1\/memory(?:[/?]|$)/;

/** The most bytes of body the route at `url` reads. */
export const bodyLimitFor = (url: string): number => (RECORD_ROUTES.test(url) ? MAX_RECORD_BODY_BYTES : MAX_BODY_BYTES);

export const payloadTooLarge = (limit: number) => new AppError("payload_too_large", `The request body is too large: at most ${limit} bytes are accepted.`);

/** The route's limit when the request declares a longer body, else null. */
function declaredPastLimit(req: IncomingMessage): number | null {
  const limit = bodyLimitFor(req.url ?? "");
  return Number(req.headers["content-length"] ?? 0) > limit ? limit : null;
}

/**
 * A client that sent `Expect: 100-continue` is told to go on only when its body could be read; otherwise the
 * app answers 413 before the body is ever sent.
 */
export function continueUnlessOversized(app: (req: IncomingMessage, res: ServerResponse) => void) {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (declaredPastLimit(req) === null) res.writeContinue();
    app(req, res);
  };
}

/**
 * A declared length over the route's limit is refused from the headers alone, before authentication and without
 * reading a byte of the body (the error handler then closes the connection instead of draining it).
 */
export const refuseOversizedBody: RequestHandler = (req, _res, next) => {
  const limit = declaredPastLimit(req);
  next(limit === null ? undefined : payloadTooLarge(limit));
};

/**
 * Checks the body's bytes before they are parsed. JSON is UTF-8: another declared charset is refused, and bytes
 * that are not UTF-8 are invalid JSON rather than silently replaced with U+FFFD. A body wider or deeper than any
 * route takes is refused before it is parsed (json-bytes.ts). `buffer` is the body as received, inflated when it
 * was compressed.
 */
function checkBytes(_req: IncomingMessage, _res: unknown, buffer: Buffer, charset: string): void {
  if (charset !== "utf-8") throw new AppError("unsupported_media_type", "Send the request body as UTF-8 JSON.");
  if (!isUtf8(buffer)) throw new AppError("invalid_json", "The request body is not valid UTF-8.");
  const problem = jsonBytesProblem(buffer);
  if (problem) throw bodyProblemError(problem);
}

/**
 * Parses the JSON body of a POST (`{}` when it is empty), reading at most the route's limit: a longer body is
 * refused once the limit is read (body-parser's `entity.too.large`, answered with the limit it carries). A request
 * that carries a body must say it is JSON; an empty body needs no content type. gzip and deflate bodies are
 * inflated (express.json's default) and the limit applies to the inflated bytes: reading stops at the limit, so a
 * small compressed body that would inflate far beyond it costs no more.
 */
const parsers = new Map(
  [MAX_BODY_BYTES, MAX_RECORD_BODY_BYTES].map((limit) => [limit, express.json({ limit, strict: false, verify: checkBytes })]),
);

export const jsonBody: RequestHandler = (req, res, next) => {
  if (METHODS_WITHOUT_BODY.has(req.method)) return next();
  // type-is, as Express's req.is uses it: this step also runs on the chat lane's undressed requests.
  if (hasBody(req.headers) && !typeIs(req, ["application/json"])) return next(new AppError("unsupported_media_type", "Send the request body as application/json."));
  parsers.get(bodyLimitFor(req.url))!(req, res, next);
};
