import type { TAssistantType, TCapabilityConfigs, TTier } from "@engram/contract";
import { ALWAYS_ENABLED_CAPABILITY } from "../capabilities/registry";
import { availableCapabilities } from "../capabilities/registry-views";
import { checkCapabilityUpdate } from "../capabilities/check-update";
import { capabilityLimit } from "../capabilities/tiers";
import type { Clock } from "../kernel/clock";
import { AppError } from "../kernel/errors";
import { decodeCursor, encodeCursor, pageOf } from "../kernel/page-cursor";
import type { Repositories, Store } from "../store";
import { type AssistantActor, actorLabel, actorUserId, canAccess, canCreate, canModify, personalAssistantsSeenBy } from "./permissions";
import type { AssistantChanges } from "./ports";
import type { AssistantRecord, AssistantSnapshot, ChangeAction } from "./records";

/** A PATCH that breaks the capability rules: every problem, one entry each (400 validation_failed). */
export class CapabilityValidationError extends AppError {
  constructor(readonly problems: ReadonlyArray<{ capabilityId?: string; error: string }>) {
    super("validation_failed", `${problems.length} capability problem(s)`);
    this.name = "CapabilityValidationError";
  }
}

export const assistantLimits = { nameMaxLength: 100 } as const;

/**
 * Personal assistants one person keeps in one organization: more than anyone uses, and a bound on what removing
 * the person deletes in one transaction with its change log.
 */
export const MAX_PERSONAL_ASSISTANTS = 100;

function checkName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > assistantLimits.nameMaxLength) {
    throw new AppError("invalid_parameter", `An assistant's name has 1 to ${assistantLimits.nameMaxLength} characters.`, "name");
  }
  return trimmed;
}

const notFound = (id: string) => new AppError("assistant_not_found", `No assistant ${id} in this organization.`, "assistantId");

/**
 * The compare-and-set lost to a concurrent change. With If-Match the version named no longer holds, which is
 * the same 412 as a stale If-Match seen on reading: the outcome must not depend on which writer read first.
 */
function lostRace(ifMatch: number | null): AppError {
  return ifMatch === null
    ? new AppError("edit_conflict", "The assistant was changed by another request meanwhile: read it again, then retry.")
    : new AppError("precondition_failed", `The assistant is no longer at version ${ifMatch}: read it again, then retry.`);
}

/**
 * Assistants and the capabilities people enable for them. Every change is one compare-and-set on the
 * assistant's version with its change-log row in the same transaction: a write based on an older version
 * (an If-Match that no longer holds, or a concurrent change) is refused, never silently overwritten.
 */
export function assistantService(store: Store, { clock }: { clock: Clock }) {
  /** The assistant as the actor may see it: missing, another organization's and inaccessible all look the same. */
  async function accessible(repos: Repositories, orgId: string, id: string, actor: AssistantActor): Promise<AssistantRecord> {
    const assistant = await repos.assistants.find(orgId, id);
    if (!assistant || !canAccess(actor, assistant)) throw notFound(id);
    return assistant;
  }

  async function modifiable(repos: Repositories, orgId: string, id: string, actor: AssistantActor, ifMatch: number | null) {
    const assistant = await accessible(repos, orgId, id, actor);
    if (!canModify(actor, assistant)) {
      throw new AppError("permission_denied", assistant.type === "org_shared" ? "Only owners and admins change organization assistants." : "Only its owner changes a personal assistant.");
    }
    if (ifMatch !== null && ifMatch !== assistant.version) {
      // Versions start at 1: 0 stands for an If-Match that names no version at all (one the route could not read).
      const named = ifMatch === 0 ? "If-Match names no version of it" : `not ${ifMatch}`;
      throw new AppError("precondition_failed", `The assistant is at version ${assistant.version} (ETag "${assistant.version}"), ${named}: read it again, then retry.`);
    }
    return assistant;
  }

  /** A lost compare-and-set: if the assistant is gone meanwhile, as if the request had come after the deletion. */
  async function lostRaceOn(repos: Repositories, orgId: string, id: string, ifMatch: number | null): Promise<AppError> {
    return (await repos.assistants.find(orgId, id)) ? lostRace(ifMatch) : notFound(id);
  }

  async function record(repos: Repositories, assistant: AssistantRecord, action: ChangeAction, actor: AssistantActor, before: AssistantSnapshot | null, after: AssistantSnapshot) {
    await repos.assistants.appendChange({
      orgId: assistant.orgId,
      assistantId: assistant.id,
      action,
      actorUserId: actorUserId(actor),
      actor: actorLabel(actor),
      before,
      after,
      version: assistant.version,
      createdAt: assistant.updatedAt,
    });
  }

  async function change(orgId: string, id: string, actor: AssistantActor, ifMatch: number | null, plan: (current: AssistantRecord) => AssistantChanges) {
    return store.transaction(async (tx) => {
      const current = await modifiable(tx, orgId, id, actor, ifMatch);
      const changes = plan(current);
      const updated = await tx.assistants.update(orgId, id, current.version, changes, clock());
      if (!updated) throw await lostRaceOn(tx, orgId, id, ifMatch);
      const before = Object.fromEntries(Object.keys(changes).map((key) => [key, current[key as keyof AssistantChanges]]));
      await record(tx, updated, "name" in changes ? "renamed" : "capabilities_changed", actor, before, changes);
      return updated;
    });
  }

  return {
    async create(orgId: string, input: { name: string; type: TAssistantType; ownerUserId?: string }, actor: AssistantActor): Promise<AssistantRecord> {
      const name = checkName(input.name);
      if (!canCreate(actor, input.type)) throw new AppError("permission_denied", "Only owners and admins create organization assistants.");
      const ownerUserId = input.type === "org_shared" ? null : actor === "cli" ? input.ownerUserId : actor.userId;
      if (input.type === "employee_personal" && !ownerUserId) throw new AppError("missing_parameter", "A personal assistant needs an owner.", "owner");
      const at = clock();
      return store.transaction(async (tx) => {
        // Membership changes lock the organization too, so an owner cannot be removed while their assistant is made.
        if (ownerUserId) await tx.organizations.lock(orgId);
        if (ownerUserId && !(await tx.memberships.find(orgId, ownerUserId))) {
          throw new AppError("member_not_found", "A personal assistant's owner must be a member of the organization.", "owner");
        }
        // Counted under the organization's lock, so two creations at once cannot both take the last place.
        if (ownerUserId && (await tx.assistants.countPersonal(orgId, ownerUserId)) >= MAX_PERSONAL_ASSISTANTS) {
          throw new AppError("assistant_limit_reached", `A person keeps at most ${MAX_PERSONAL_ASSISTANTS} personal assistants in an organization: delete one first.`);
        }
        const assistant = await tx.assistants.create({
          orgId,
          name,
          type: input.type,
          ownerUserId: ownerUserId ?? null,
          capabilities: [ALWAYS_ENABLED_CAPABILITY],
          capabilityConfigs: {},
          createdAt: at,
        });
        await record(tx, assistant, "created", actor, null, { name, type: input.type, capabilities: assistant.capabilities, capabilityConfigs: {} });
        return assistant;
      });
    },

    /** Every assistant the actor may see, oldest first. */
    list: (orgId: string, actor: AssistantActor): Promise<AssistantRecord[]> => store.assistants.list(orgId, { visibleTo: personalAssistantsSeenBy(actor) }),

    /** A page of them; `cursor` is the page before's `nextCursor`. */
    async page(orgId: string, actor: AssistantActor, query: { cursor?: string; limit: number }) {
      const rows = await store.assistants.list(orgId, { visibleTo: personalAssistantsSeenBy(actor), page: { after: decodeCursor(query.cursor), limit: query.limit + 1 } });
      return pageOf(rows, query.limit, (assistant) => encodeCursor(assistant));
    },

    get: (orgId: string, id: string, actor: AssistantActor) => accessible(store, orgId, id, actor),

    /** What may be enabled on the assistant at the organization's tier, beside what is enabled now. */
    async available(orgId: string, id: string, actor: AssistantActor, tier: TTier) {
      const assistant = await accessible(store, orgId, id, actor);
      return { assistant, ...availableCapabilities(assistant.type, tier), limit: capabilityLimit(tier) };
    },

    rename: (orgId: string, id: string, name: string, actor: AssistantActor, ifMatch: number | null = null) => {
      const trimmed = checkName(name);
      return change(orgId, id, actor, ifMatch, () => ({ name: trimmed }));
    },

    /** Sets the enabled capabilities and their configs (for new requests; nothing already answered changes). */
    updateCapabilities(
      orgId: string,
      id: string,
      update: { capabilities: readonly string[]; capabilityConfigs: TCapabilityConfigs },
      context: { actor: AssistantActor; tier: TTier; ifMatch?: number | null },
    ): Promise<AssistantRecord> {
      return change(orgId, id, context.actor, context.ifMatch ?? null, (current) => {
        const checked = checkCapabilityUpdate(update, { assistantType: current.type, tier: context.tier });
        if (!checked.ok) throw new CapabilityValidationError(checked.problems);
        return { capabilities: checked.capabilities, capabilityConfigs: checked.capabilityConfigs };
      });
    },

    async delete(orgId: string, id: string, actor: AssistantActor, ifMatch: number | null = null): Promise<void> {
      await store.transaction(async (tx) => {
        const current = await modifiable(tx, orgId, id, actor, ifMatch);
        if (!(await tx.assistants.delete(orgId, id, current.version))) throw await lostRaceOn(tx, orgId, id, ifMatch);
        // The deletion is the assistant's last change: it gets the next version, as every change does.
        await record(tx, { ...current, version: current.version + 1, updatedAt: clock() }, "deleted", actor, { name: current.name, capabilities: current.capabilities }, {});
      });
    },

    /**
     * A page of the change log, newest first; `cursor` is the version of the last change of the page before. It
     * outlives the assistant: after deletion, owners and admins (and the CLI) still read it; to anyone else a
     * deleted assistant is as absent as a missing one.
     */
    async changes(orgId: string, id: string, actor: AssistantActor, page: { cursor?: string; limit: number }) {
      const assistant = await store.assistants.find(orgId, id);
      const oversees = actor === "cli" || actor.role === "owner" || actor.role === "admin";
      if (assistant ? !canAccess(actor, assistant) : !oversees) throw notFound(id);
      const beforeVersion = page.cursor === undefined ? null : Number(page.cursor);
      const rows = await store.assistants.changes(orgId, id, { beforeVersion, limit: page.limit + 1 });
      if (rows.length === 0 && beforeVersion === null) throw notFound(id);
      const { items, nextCursor } = pageOf(rows, page.limit, (change) => String(change.version));
      return { changes: items, nextCursor };
    },
  };
}

export type AssistantService = ReturnType<typeof assistantService>;
