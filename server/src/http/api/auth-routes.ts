import { apiContract } from "@engram/contract";
import { initServer } from "@ts-rest/express";
import type { ApplicationConfig } from "../../application-config";
import type { SessionService } from "../../domain/people/sessions";
import { clearSessionCookie, sessionSecretOf, setSessionCookie } from "./session-cookie";
import { signedInOf } from "./session-auth";
import { sessionView } from "./views";

const s = initServer();

/**
 * Signing in happens before there is a session, and signing out must work when the session has already ended
 * (clearing a stale cookie), so both are served apart from the routes that need one.
 */
const { login, logout, ...signedInAuthContract } = apiContract.auth;
export const sessionlessAuthContract = { login, logout };
export { signedInAuthContract };

export function sessionlessAuthRoutes(sessions: SessionService, config: ApplicationConfig) {
  return s.router(sessionlessAuthContract, {
    login: async ({ body, req, res }) => {
      const { secret, signedIn } = await sessions.login({
        email: body.email,
        password: body.password,
        address: req.socket.remoteAddress ?? "unknown",
        previousSecret: sessionSecretOf(req),
      });
      setSessionCookie(req, res, secret, signedIn.expiresAt, config.cookieSecure);
      return { status: 200 as const, body: sessionView(signedIn) };
    },
    logout: async ({ req, res }) => {
      const secret = sessionSecretOf(req);
      if (secret) await sessions.logout(secret);
      clearSessionCookie(req, res, config.cookieSecure);
      return { status: 200 as const, body: { success: true as const } };
    },
  });
}

export function authRoutes(deps: { sessions: SessionService; config: ApplicationConfig }) {
  const { sessions, config } = deps;
  return s.router(signedInAuthContract, {
    me: async ({ res }) => ({ status: 200 as const, body: sessionView(signedInOf(res)) }),
    switchOrganization: async ({ body, res }) => ({
      status: 200 as const,
      body: sessionView(await sessions.switchOrganization(signedInOf(res), body.organizationId)),
    }),
    changePassword: async ({ body, req, res }) => {
      // Every session of the person ends, this one included; a new one replaces it.
      const passwords = { current: body.currentPassword, next: body.newPassword };
      const { secret, signedIn: renewed } = await sessions.changePassword(signedInOf(res), passwords, req.socket.remoteAddress ?? "unknown");
      setSessionCookie(req, res, secret, renewed.expiresAt, config.cookieSecure);
      return { status: 200 as const, body: sessionView(renewed) };
    },
  });
}
