import type { RequestHandler, Response } from "express";
import type { RateLimitSubject } from "../../domain/rate-limits/limiter";
import { AppError } from "../../domain/kernel/errors";
import type { OrgActor } from "../../domain/people/roles";
import type { OrganizationMembership, SessionService, SignedIn } from "../../domain/people/sessions";
import { bindToLog } from "../request-context";
import { sessionSecretOf } from "./session-cookie";

/** Access tokens belong to `/v1`: a request to `/api` that carries one is refused, not quietly ignored. */
export const refuseTokens: RequestHandler = (req, _res, next) => {
  if (req.headers.authorization !== undefined) {
    return next(new AppError("token_not_accepted", "Access tokens are not accepted on /api: sign in with POST /api/auth/login and send the session cookie."));
  }
  next();
};

/** Reads the session cookie; a valid session is kept for the route, an unknown or ended one is as none. */
export function resolveSession(sessions: SessionService): RequestHandler {
  return (req, res, next) => {
    const secret = sessionSecretOf(req);
    if (!secret) return next();
    sessions
      .resolve(secret)
      .then((signedIn) => {
        if (signedIn) {
          res.locals.signedIn = signedIn;
          bindToLog(req, { userId: signedIn.userId, orgId: signedIn.organization?.id });
        }
        next();
      })
      .catch(next);
  };
}

export const requireSession: RequestHandler = (_req, res, next) => {
  next(res.locals.signedIn ? undefined : new AppError("not_signed_in", "Sign in first: POST /api/auth/login, then send the session cookie."));
};

export function signedInOf(res: Response): SignedIn {
  const signedIn = res.locals.signedIn as SignedIn | undefined;
  if (!signedIn) throw new AppError("not_signed_in", "Sign in first: POST /api/auth/login, then send the session cookie.");
  return signedIn;
}

/** The organization the session acts in; someone who belongs to none can only read who they are. */
export function organizationOf(signedIn: SignedIn): OrganizationMembership {
  if (!signedIn.organization) throw new AppError("organization_not_found", "You are not a member of any organization yet: ask an owner or admin to add you.");
  return signedIn.organization;
}

/** The signed-in person as the actor in their active organization. */
export function actorOf(res: Response): OrgActor {
  const signedIn = signedInOf(res);
  const organization = organizationOf(signedIn);
  return { orgId: organization.id, userId: signedIn.userId, role: organization.role, label: `user:${signedIn.email}` };
}

/** Session requests are counted per organization (production figures: the application has no environments). */
export function sessionRateSubject(res: Response): RateLimitSubject | null {
  const organization = (res.locals.signedIn as SignedIn | undefined)?.organization;
  return organization ? { orgId: organization.id, environment: "production", plan: organization.plan } : null;
}
