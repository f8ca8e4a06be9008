import { initContract } from "@ts-rest/core";
import { z } from "zod";
import { ZTier } from "./capabilities";
import { ZSuccess } from "./responses";

export const ZRole = z.enum(["owner", "admin", "member"]);
export type TRole = z.infer<typeof ZRole>;

export const ZUser = z.object({ id: z.string(), email: z.string(), displayName: z.string() });

export const ZOrganizationMembership = z.object({ id: z.string(), name: z.string(), plan: ZTier, role: ZRole });

/** The signed-in person, their organizations, and the one this session acts in. */
export const ZSession = ZSuccess.extend({
  user: ZUser,
  organizations: z.array(ZOrganizationMembership),
  activeOrganizationId: z.string().nullable(),
  /** Send as X-CSRF-Token on unsafe requests from clients that send no Origin header (curl, scripts). */
  csrfToken: z.string(),
  expiresAt: z.string(),
});
export type TSession = z.infer<typeof ZSession>;

const ZLoginBody = z.object({ email: z.string().max(320), password: z.string().max(1024) }).strict();
const ZPasswordBody = z.object({ currentPassword: z.string().max(1024), newPassword: z.string().max(1024) }).strict();
const ZEmptyBody = z.object({}).strict().optional();

const c = initContract();

export const authContract = c.router({
  login: {
    method: "POST",
    path: "/auth/login",
    body: ZLoginBody,
    responses: { 200: ZSession },
    summary: "Sign in: sets the session cookie",
    metadata: { public: true },
  },
  logout: {
    method: "POST",
    path: "/auth/logout",
    body: ZEmptyBody,
    responses: { 200: ZSuccess },
    summary: "Sign out: ends the session and clears the cookie",
  },
  me: { method: "GET", path: "/auth/me", responses: { 200: ZSession }, summary: "The signed-in person and their organizations" },
  switchOrganization: {
    method: "PUT",
    path: "/auth/organization",
    body: z.object({ organizationId: z.string().max(100) }).strict(),
    responses: { 200: ZSession },
    summary: "Choose the organization this session acts in",
  },
  changePassword: {
    method: "POST",
    path: "/auth/password",
    body: ZPasswordBody,
    responses: { 200: ZSession },
    summary: "Change your password: ends your other sessions and replaces this one",
  },
});
