import { apiContract } from "@engram/contract";
import { initServer } from "@ts-rest/express";
import type { OrganizationAdmin } from "../../domain/administration/organization-admin";
import type { AgentRecord, OrganizationRecord, TokenRecord } from "../../domain/access/records";
import type { MemberView } from "../../domain/people/ports";
import { actorOf } from "./session-auth";
import { requestIdOf } from "../request-context";

const s = initServer();
const ok = { success: true as const };

const organizationView = (org: OrganizationRecord) => ({ ...org, createdAt: org.createdAt.toISOString() });

const memberView = (member: MemberView) => ({
  userId: member.userId,
  email: member.email,
  displayName: member.displayName,
  role: member.role,
  joinedAt: member.createdAt.toISOString(),
});

const tokenView = (token: TokenRecord) => ({
  id: token.id,
  name: token.name,
  prefix: token.prefix,
  scopes: token.scopes,
  environment: token.environment,
  agents: token.agentSlugs,
  createdAt: token.createdAt.toISOString(),
  revokedAt: token.revokedAt?.toISOString() ?? null,
});

const agentView = (agent: AgentRecord) => ({ slug: agent.slug, createdAt: agent.createdAt.toISOString() });

export function organizationRoutes(admin: OrganizationAdmin) {
  return s.router(apiContract.organization, {
    get: async ({ res }) => {
      const actor = actorOf(res);
      return { status: 200 as const, body: { ...ok, organization: organizationView(await admin.organization(actor)), role: actor.role } };
    },
    update: async ({ body, res }) => {
      const actor = actorOf(res);
      return { status: 200 as const, body: { ...ok, organization: organizationView(await admin.updateOrganization(actor, body)), role: actor.role } };
    },
    listMembers: async ({ query, res }) => {
      const page = await admin.members(actorOf(res), query);
      return { status: 200 as const, body: { ...ok, members: page.items.map(memberView), nextCursor: page.nextCursor } };
    },
    addMember: async ({ body, res }) => {
      const { member, temporaryPassword } = await admin.addMember(actorOf(res), body);
      return { status: 201 as const, body: { ...ok, member: memberView(member), ...(temporaryPassword ? { temporaryPassword } : {}) } };
    },
    changeRole: async ({ params, body, res }) => ({
      status: 200 as const,
      body: { ...ok, member: memberView(await admin.changeRole(actorOf(res), params.userId, body.role)) },
    }),
    removeMember: async ({ params, res }) => {
      await admin.removeMember(actorOf(res), params.userId);
      return { status: 200 as const, body: ok };
    },
    listTokens: async ({ query, res }) => {
      const page = await admin.tokens(actorOf(res), query);
      return { status: 200 as const, body: { ...ok, tokens: page.items.map(tokenView), nextCursor: page.nextCursor } };
    },
    createToken: async ({ body, res }) => {
      const { token, record } = await admin.createToken(actorOf(res), body);
      return { status: 201 as const, body: { ...ok, token, record: tokenView(record) } };
    },
    revokeToken: async ({ params, res }) => {
      await admin.revokeToken(actorOf(res), params.tokenId);
      return { status: 200 as const, body: ok };
    },
    listAgents: async ({ query, res }) => {
      const page = await admin.agents(actorOf(res), query);
      return { status: 200 as const, body: { ...ok, agents: page.agents.map(agentView), nextCursor: page.nextCursor } };
    },
    listCandidates: async ({ query, res }) => ({
      status: 200 as const,
      body: { ...ok, candidates: await admin.candidates(actorOf(res), query.environment ?? null) },
    }),
    promoteCandidate: async ({ params, body, req, res }) => ({
      status: 200 as const,
      body: { ...ok, memory: await admin.review(actorOf(res), params.id, "promote", { reason: body?.reason, requestId: requestIdOf(req) }) },
    }),
    rejectCandidate: async ({ params, body, req, res }) => ({
      status: 200 as const,
      body: { ...ok, memory: await admin.review(actorOf(res), params.id, "reject", { reason: body?.reason, requestId: requestIdOf(req) }) },
    }),
  });
}
