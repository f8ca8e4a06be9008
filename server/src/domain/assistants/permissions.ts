import type { Role } from "../people/records";
import type { AssistantRecord } from "./records";

/** Who acts on an assistant: a signed-in member (with a label for the change log), or the command line. */
export type AssistantActor = { userId: string; role: Role; label: string } | "cli";

export const actorLabel = (actor: AssistantActor) => (actor === "cli" ? "cli" : actor.label);
export const actorUserId = (actor: AssistantActor) => (actor === "cli" ? null : actor.userId);

const manages = (role: Role) => role === "owner" || role === "admin";

/**
 * Access (seeing an assistant and its capabilities): every member for org_shared assistants; for personal ones
 * their owner, and owners and admins, who oversee what the organization's assistants may do.
 */
export function canAccess(actor: AssistantActor, assistant: AssistantRecord): boolean {
  if (actor === "cli") return true;
  return assistant.type === "org_shared" || assistant.ownerUserId === actor.userId || manages(actor.role);
}

/** The same rule for a list: whose personal assistants the actor sees beside the shared ones (all: undefined). */
export function personalAssistantsSeenBy(actor: AssistantActor): string | undefined {
  return actor === "cli" || manages(actor.role) ? undefined : actor.userId;
}

/** Modify (rename, delete, change capabilities): owners and admins for org_shared; only its owner for a personal one. */
export function canModify(actor: AssistantActor, assistant: AssistantRecord): boolean {
  if (actor === "cli") return true;
  return assistant.type === "org_shared" ? manages(actor.role) : assistant.ownerUserId === actor.userId;
}

/** Creating: org_shared assistants by owners and admins; a personal one by any member, for themselves. */
export function canCreate(actor: AssistantActor, type: AssistantRecord["type"]): boolean {
  return actor === "cli" || type === "employee_personal" || manages(actor.role);
}
