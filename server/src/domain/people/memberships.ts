import { AppError, DuplicateKeyError } from "../kernel/errors";
import type { Clock } from "../kernel/clock";
import type { ListPage } from "../kernel/page-cursor";
import { noSuchOrganization } from "../access/organizations";
import type { Repositories, Store } from "../store";
import { type Role, roles } from "./records";

/** Who acts: the signed-in person's role in the organization, or the command line (which may do anything). */
export type MembershipActor = { role: Role; userId: string; label: string } | "cli";

export function parseRole(value: string): Role {
  if (!roles.includes(value as Role)) throw new AppError("invalid_parameter", `Unknown role "${value}"; use owner, admin or member.`, "role");
  return value as Role;
}

/**
 * Owners and admins manage members; only owners touch the owner role (grant it, or change or remove an
 * owner). Members manage no one.
 */
export function authorizeMembershipChange(actor: MembershipActor, targetRole: Role | null, newRole: Role | null): void {
  if (actor === "cli") return;
  if (actor.role === "member") throw new AppError("permission_denied", "Only owners and admins manage members.");
  if (actor.role === "admin" && (targetRole === "owner" || newRole === "owner")) {
    throw new AppError("permission_denied", "Only owners grant, change or remove the owner role.");
  }
}

/**
 * An organization keeps at least one owner: checked after a change that took an owner away, inside its
 * transaction. One with no owner yet (made by the command line) can still have its members managed.
 */
async function requireAnOwner(tx: Repositories, orgId: string, changedRole: Role): Promise<void> {
  if (changedRole === "owner" && (await tx.memberships.countOwners(orgId)) === 0) {
    throw new AppError("last_owner", "An organization needs an owner: make someone else owner first.");
  }
}

/**
 * The actor as of now, inside the change's locked transaction: a person demoted or removed a moment ago acts
 * with the role they have now, not the one their request started with.
 */
async function actingNow(tx: Repositories, orgId: string, actor: MembershipActor): Promise<MembershipActor> {
  if (actor === "cli") return actor;
  const membership = await tx.memberships.find(orgId, actor.userId);
  if (!membership) throw new AppError("permission_denied", "You are no longer a member of this organization.");
  return { ...actor, role: membership.role };
}

export function membershipService(store: Store, { clock }: { clock: Clock }) {
  return {
    /** The members, oldest membership first: every one, or a page of them. */
    list: (orgId: string, page?: ListPage) => store.memberships.list(orgId, page),
    view: (orgId: string, userId: string) => store.memberships.view(orgId, userId),

    async add(orgId: string, userId: string, role: Role, actor: MembershipActor) {
      authorizeMembershipChange(actor, null, role);
      try {
        return await store.transaction(async (tx) => {
          if (!(await tx.organizations.find(orgId))) throw noSuchOrganization(orgId);
          // As every change to members: under the organization's lock, with the role the actor has now.
          await tx.organizations.lock(orgId);
          authorizeMembershipChange(await actingNow(tx, orgId, actor), null, role);
          if (await tx.memberships.find(orgId, userId)) throw new AppError("already_exists", "That person is already a member.");
          return tx.memberships.add({ orgId, userId, role, at: clock() });
        });
      } catch (error) {
        if (error instanceof DuplicateKeyError) throw new AppError("already_exists", "That person is already a member.");
        throw error;
      }
    },

    /**
     * Each change locks the organization's row first, so concurrent changes to its members run one after
     * another and two owners cannot demote each other at once.
     */
    async changeRole(orgId: string, userId: string, role: Role, actor: MembershipActor) {
      return store.transaction(async (tx) => {
        await tx.organizations.lock(orgId);
        const acting = await actingNow(tx, orgId, actor);
        const current = await tx.memberships.find(orgId, userId);
        if (!current) throw new AppError("member_not_found", "No such member in this organization.");
        authorizeMembershipChange(acting, current.role, role);
        if (current.role === role) return current;
        await tx.memberships.changeRole(orgId, userId, current.role, role);
        await requireAnOwner(tx, orgId, current.role);
        return { ...current, role };
      });
    },

    /** Removing a member also deletes their personal assistants in the organization. */
    async remove(orgId: string, userId: string, actor: MembershipActor) {
      await store.transaction(async (tx) => {
        await tx.organizations.lock(orgId);
        const acting = await actingNow(tx, orgId, actor);
        const current = await tx.memberships.find(orgId, userId);
        if (!current) throw new AppError("member_not_found", "No such member in this organization.");
        if (acting === "cli" || acting.userId !== userId) authorizeMembershipChange(acting, current.role, null);
        await tx.memberships.remove(orgId, userId);
        await requireAnOwner(tx, orgId, current.role);
        const at = clock();
        const deleted = await tx.assistants.deletePersonal(orgId, userId);
        await tx.assistants.appendChanges(
          deleted.map((assistant) => ({
            orgId,
            assistantId: assistant.id,
            action: "deleted" as const,
            actorUserId: actor === "cli" ? null : actor.userId,
            actor: actor === "cli" ? "cli" : actor.label,
            before: { name: assistant.name, capabilities: assistant.capabilities },
            after: {},
            version: assistant.version + 1,
            createdAt: at,
          })),
        );
      });
    },
  };
}

export type MembershipService = ReturnType<typeof membershipService>;
