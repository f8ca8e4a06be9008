import type { Request } from "express";
import { AppError } from "../domain/kernel/errors";

/**
 * Routes without an agent boundary refuse `X-Service-Agent` rather than ignore it: a caller who sends it
 * believes it narrows what the request does, and it would not.
 */
export function refuseAgentHeader(req: Request, route: string, why: string): void {
  if (req.headers["x-service-agent"] === undefined) return;
  throw new AppError("invalid_parameter", `${route} has no agent form (${why}); send it without X-Service-Agent.`, "X-Service-Agent");
}
