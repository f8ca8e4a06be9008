import { initContract } from "@ts-rest/core";
import { z } from "zod";
import { ZAgentSlug, ZEnvironment, ZIsoDate, ZScope } from "../common";
import { ZMemory } from "../memory";
import { ZRole } from "./auth";
import { ZTier } from "./capabilities";
import { pageQuery } from "./paging";
import { ZSuccess } from "./responses";

export const ZOrganization = z.object({
  id: z.string(),
  name: z.string(),
  plan: ZTier,
  writeMode: z.enum(["direct", "candidate"]),
  founderWorkspace: z.boolean(),
  environmentsEnabled: z.boolean(),
  createdAt: ZIsoDate,
});

export const ZMember = z.object({ userId: z.string(), email: z.string(), displayName: z.string(), role: ZRole, joinedAt: ZIsoDate });

export const ZTokenSummary = z.object({
  id: z.string(),
  name: z.string(),
  /** The token's first characters, to tell tokens apart. */
  prefix: z.string(),
  scopes: z.array(ZScope),
  environment: ZEnvironment.nullable(),
  agents: z.array(z.string()).nullable(),
  createdAt: ZIsoDate,
  revokedAt: ZIsoDate.nullable(),
});

/** An agent: named by a slug, registered by the first memory written for it. */
export const ZAgent = z.object({ slug: z.string(), createdAt: ZIsoDate });

/**
 * The oldest candidates the console lists at once: each may carry a memory and the event it came from, 8,000
 * characters each, which JSON can write six times longer.
 */
export const candidateListLimit = 50;

/**
 * Tokens and members a page: a token may name 100 agents (about 7 KB of JSON), a member's email and name hold
 * control characters JSON writes six times longer, and nothing counts either.
 */
export const organizationListLimits = { tokensPerPage: 100, membersPerPage: 200 } as const;

/** Agents a page: an organization may have tens of thousands, registered by writes. */
export const agentListLimits = { defaultLimit: 500, maxLimit: 500 } as const;

/** A memory awaiting review, with the developer event it was made from (null when encoded directly). */
export const ZCandidate = ZMemory.extend({
  event: z.object({ id: z.string(), type: z.string(), text: z.string(), source: z.string().nullable(), subject: z.string().nullable(), receivedAt: ZIsoDate }).nullable(),
});
export type TCandidate = z.infer<typeof ZCandidate>;

const ZUserIdParams = z.object({ userId: z.string().min(1).max(100) });
const ZTokenIdParams = z.object({ tokenId: z.string().min(1).max(100) });
const ZCandidateParams = z.object({ id: z.string().min(1).max(100) });
const ZReviewBody = z.object({ reason: z.string().trim().min(1).max(1000).optional() }).strict().optional();

const c = initContract();

/** What owners and admins manage through the application (members read it). */
export const organizationContract = c.router({
  get: { method: "GET", path: "/organization", responses: { 200: ZSuccess.extend({ organization: ZOrganization, role: ZRole }) }, summary: "The active organization" },
  update: {
    method: "PATCH",
    path: "/organization",
    body: z
      .object({ name: z.string().max(100).optional(), writeMode: z.enum(["direct", "candidate"]).optional() })
      .strict()
      .refine((body) => body.name !== undefined || body.writeMode !== undefined, "name or writeMode is required"),
    responses: { 200: ZSuccess.extend({ organization: ZOrganization, role: ZRole }) },
    summary: "Rename the organization or change its write mode (owners and admins)",
  },
  listMembers: {
    method: "GET",
    path: "/organization/members",
    query: pageQuery(organizationListLimits.membersPerPage),
    responses: { 200: ZSuccess.extend({ members: z.array(ZMember), nextCursor: z.string().nullable() }) },
    summary: "Members and their roles, oldest membership first, a page at a time",
  },
  addMember: {
    method: "POST",
    path: "/organization/members",
    body: z.object({ email: z.string().max(320), role: ZRole, displayName: z.string().max(100).optional() }).strict(),
    responses: {
      201: ZSuccess.extend({
        member: ZMember,
        /** Set when a new account was made: its password, shown only this once. */
        temporaryPassword: z.string().optional(),
      }),
    },
    summary: "Add a member (making an account with a temporary password when there is none)",
  },
  changeRole: {
    method: "PATCH",
    path: "/organization/members/:userId",
    pathParams: ZUserIdParams,
    body: z.object({ role: ZRole }).strict(),
    responses: { 200: ZSuccess.extend({ member: ZMember }) },
    summary: "Change a member's role",
  },
  removeMember: {
    method: "DELETE",
    path: "/organization/members/:userId",
    pathParams: ZUserIdParams,
    body: z.object({}).strict().optional(),
    responses: { 200: ZSuccess },
    summary: "Remove a member (the last owner cannot be removed)",
  },
  listTokens: {
    method: "GET",
    path: "/organization/tokens",
    query: pageQuery(organizationListLimits.tokensPerPage),
    responses: { 200: ZSuccess.extend({ tokens: z.array(ZTokenSummary), nextCursor: z.string().nullable() }) },
    summary: "Access tokens, oldest first, revoked ones included, a page at a time",
  },
  createToken: {
    method: "POST",
    path: "/organization/tokens",
    body: z
      .object({
        name: z.string().trim().min(1).max(100),
        scopes: z.array(ZScope).min(1, "choose at least one scope").max(20),
        environment: ZEnvironment,
        agents: z.array(ZAgentSlug).min(1, "name at least one agent, or leave agents out for a token of the whole organization").max(100).optional(),
      })
      .strict(),
    responses: { 201: ZSuccess.extend({ token: z.string(), record: ZTokenSummary }) },
    summary: "Create an access token: the secret is in this answer only",
  },
  revokeToken: {
    method: "DELETE",
    path: "/organization/tokens/:tokenId",
    pathParams: ZTokenIdParams,
    body: z.object({}).strict().optional(),
    responses: { 200: ZSuccess },
    summary: "Revoke an access token",
  },
  listAgents: {
    method: "GET",
    path: "/organization/agents",
    // The cursor is the last slug the previous page listed.
    query: pageQuery(agentListLimits.maxLimit, ZAgentSlug),
    responses: { 200: ZSuccess.extend({ agents: z.array(ZAgent), nextCursor: z.string().nullable() }) },
    summary: "The agents memories were written for, in every environment, by slug, a page at a time",
  },
  listCandidates: {
    method: "GET",
    path: "/memory/candidates",
    query: z.object({ environment: ZEnvironment.optional() }).strict(),
    responses: { 200: ZSuccess.extend({ candidates: z.array(ZCandidate) }) },
    summary: `Memories awaiting review, oldest first (at most ${candidateListLimit})`,
  },
  promoteCandidate: {
    method: "POST",
    path: "/memory/candidates/:id/promote",
    pathParams: ZCandidateParams,
    body: ZReviewBody,
    responses: { 200: ZSuccess.extend({ memory: ZMemory }) },
    summary: "Promote a candidate to durable memory (owners and admins)",
  },
  rejectCandidate: {
    method: "POST",
    path: "/memory/candidates/:id/reject",
    pathParams: ZCandidateParams,
    body: ZReviewBody,
    responses: { 200: ZSuccess.extend({ memory: ZMemory }) },
    summary: "Reject a candidate: it is tombstoned, kept for provenance (owners and admins)",
  },
});
