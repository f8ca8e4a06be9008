import { candidateListLimit, type TEnvironment, type TScope } from "@engram/contract";
import type { TokenService } from "../access/access-tokens";
import type { OrganizationService } from "../access/organizations";
import type { AgentRepository } from "../access/ports";
import type { AgentRecord, WriteMode } from "../access/records";
import type { CandidateService } from "../candidates/candidate-review";
import { AppError } from "../kernel/errors";
import { decodeCursor, encodeCursor, pageOf } from "../kernel/page-cursor";
import { authorizeMembershipChange, type MembershipService } from "../people/memberships";
import type { Role } from "../people/records";
import { type OrgActor, requireManager } from "../people/roles";
import type { UserService } from "../people/users";

/**
 * What the command line does for an organization, for its signed-in people: everyone reads; owners and admins
 * change settings, tokens, members and review candidates. Everything stays inside the actor's organization.
 */
export function organizationAdmin(deps: {
  organizations: OrganizationService;
  tokens: TokenService;
  memberships: MembershipService;
  users: UserService;
  candidates: CandidateService;
  agents: AgentRepository;
}) {
  const { organizations, tokens, memberships, users, candidates, agents } = deps;

  async function organizationOf(actor: OrgActor) {
    const org = await organizations.find(actor.orgId);
    if (!org) throw new AppError("organization_not_found", "The organization no longer exists.");
    return org;
  }

  async function memberView(actor: OrgActor, userId: string) {
    const member = await memberships.view(actor.orgId, userId);
    if (!member) throw new AppError("member_not_found", "No such member in this organization.");
    return member;
  }

  return {
    organization: organizationOf,

    async updateOrganization(actor: OrgActor, changes: { name?: string; writeMode?: WriteMode }) {
      requireManager(actor, "change the organization's settings");
      const org = await organizations.update(actor.orgId, changes);
      // Verified tokens carry their organization's write mode: the next write must see the new one.
      await tokens.forgetVerified();
      return org;
    },

    /** A page of the members, oldest membership first. */
    async members(actor: OrgActor, page: { cursor?: string; limit: number }) {
      const rows = await memberships.list(actor.orgId, { after: decodeCursor(page.cursor), limit: page.limit + 1 });
      return pageOf(rows, page.limit, (member) => encodeCursor({ createdAt: member.createdAt, id: member.userId }));
    },

    /** Adds a person by email, making an account with a temporary password (returned once) when there is none. */
    async addMember(actor: OrgActor, input: { email: string; role: Role; displayName?: string }) {
      // Checked before an account is made, so a refused request leaves nothing behind.
      authorizeMembershipChange(actor, null, input.role);
      const existing = await users.findByEmail(input.email).catch((error) => {
        if (error instanceof AppError && error.code === "user_not_found") return null;
        throw error;
      });
      const created = existing ? null : await users.create({ email: input.email, displayName: input.displayName });
      const user = existing ?? created!.user;
      await memberships.add(actor.orgId, user.id, input.role, actor);
      return { member: await memberView(actor, user.id), temporaryPassword: created?.password };
    },

    async changeRole(actor: OrgActor, userId: string, role: Role) {
      await memberships.changeRole(actor.orgId, userId, role, actor);
      return memberView(actor, userId);
    },

    removeMember: (actor: OrgActor, userId: string) => memberships.remove(actor.orgId, userId, actor),

    /** A page of the tokens, oldest first, revoked ones included. */
    async tokens(actor: OrgActor, page: { cursor?: string; limit: number }) {
      const rows = await tokens.list(actor.orgId, { after: decodeCursor(page.cursor), limit: page.limit + 1 });
      return pageOf(rows, page.limit, (token) => encodeCursor(token));
    },

    async createToken(actor: OrgActor, input: { name: string; scopes: TScope[]; environment: TEnvironment; agents?: string[] }) {
      requireManager(actor, "create access tokens");
      return tokens.create({ orgId: actor.orgId, name: input.name, scopes: input.scopes, environment: input.environment, agentSlugs: input.agents ?? null });
    },

    async revokeToken(actor: OrgActor, tokenId: string) {
      requireManager(actor, "revoke access tokens");
      if (!(await tokens.revoke(tokenId, actor.orgId))) throw new AppError("token_not_found", `No token ${tokenId} in this organization.`, "tokenId");
    },

    /** A page of the organization's agents by slug; `cursor` is the last slug of the page before. */
    async agents(actor: OrgActor, page: { cursor?: string; limit: number }): Promise<{ agents: AgentRecord[]; nextCursor: string | null }> {
      const rows = await agents.list(actor.orgId, { after: page.cursor ?? null, limit: page.limit + 1 });
      const { items, nextCursor } = pageOf(rows, page.limit, (agent) => agent.slug);
      return { agents: items, nextCursor };
    },

    candidates: (actor: OrgActor, environment: TEnvironment | null) => candidates.list(actor.orgId, environment, candidateListLimit),

    async review(actor: OrgActor, memoryId: string, decision: "promote" | "reject", input: { reason?: string; requestId: string | null }) {
      requireManager(actor, "review candidate memories");
      return candidates[decision](memoryId, { actor: actor.label, reason: input.reason, requestId: input.requestId, orgId: actor.orgId });
    },
  };
}

export type OrganizationAdmin = ReturnType<typeof organizationAdmin>;
