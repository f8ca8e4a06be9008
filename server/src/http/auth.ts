import type { RequestHandler, Response } from "express";
import type { Caller } from "../domain/access/caller";
import type { TokenService } from "../domain/access/access-tokens";
import { bindToLog, requestIdOf } from "./request-context";

/** Resolves `Authorization: Bearer acm_…` to the caller, or answers the documented 401. */
export function authenticate(tokens: TokenService): RequestHandler {
  return (req, res, next) => {
    const header = req.headers.authorization;
    const token = header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    tokens
      .authenticate(token, requestIdOf(req))
      .then((caller) => {
        res.locals.caller = caller;
        bindToLog(req, { orgId: caller.orgId, tokenId: caller.tokenId });
        next();
      })
      .catch(next);
  };
}

export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (!caller) throw new Error("route reached without authentication");
  return caller;
}
