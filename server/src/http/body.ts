import express, { type RequestHandler } from "express";
import { AppError } from "../domain/errors";

/** Request bodies above this are refused before parsing; a memory's text is at most 8,000 characters. */
export const MAX_BODY_BYTES = 1024 * 1024;

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers["content-length"];
  return headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/** A request that carries a body must say it is JSON; an empty body needs no content type. */
const requireJsonContentType: RequestHandler = (req, _res, next) => {
  if (hasBody(req.headers) && !req.is("application/json")) {
    return next(new AppError("unsupported_media_type", "Send the request body as application/json."));
  }
  next();
};

export const jsonBody: RequestHandler[] = [requireJsonContentType, express.json({ limit: MAX_BODY_BYTES, strict: false })];
