import type { TAssistant, TSession, TTier } from "@engram/contract";
import type { AssistantChangeRecord, AssistantRecord } from "../../domain/assistants/records";
import type { SignedIn } from "../../domain/people/sessions";

export function sessionView(signedIn: SignedIn): TSession {
  return {
    success: true,
    user: { id: signedIn.userId, email: signedIn.email, displayName: signedIn.displayName },
    organizations: signedIn.organizations.map((o) => ({ ...o, plan: o.plan as TTier })),
    activeOrganizationId: signedIn.organization?.id ?? null,
    csrfToken: signedIn.csrfToken,
    expiresAt: signedIn.expiresAt.toISOString(),
  };
}

/** Exactly the fields the capabilities routes show. */
export function assistantView(assistant: AssistantRecord): TAssistant {
  return { _id: assistant.id, name: assistant.name, type: assistant.type, capabilities: assistant.capabilities, capabilityConfigs: assistant.capabilityConfigs };
}

export function assistantDetailView(assistant: AssistantRecord) {
  return {
    ...assistantView(assistant),
    ownerUserId: assistant.ownerUserId,
    version: assistant.version,
    createdAt: assistant.createdAt.toISOString(),
    updatedAt: assistant.updatedAt.toISOString(),
  };
}

export function changeView(change: AssistantChangeRecord) {
  return {
    id: change.id,
    action: change.action,
    actor: change.actor,
    actorUserId: change.actorUserId,
    before: change.before,
    after: change.after,
    version: change.version,
    createdAt: change.createdAt.toISOString(),
  };
}

/** An assistant's version as an ETag, and the version an If-Match names (null when absent; 0 when unreadable). */
export const etagOf = (assistant: AssistantRecord) => `"${assistant.version}"`;

/** What may be enabled depends on the tier too: a cached copy must not be revalidated after a plan change. */
export const availableEtagOf = (assistant: AssistantRecord, tier: TTier) => `"${assistant.version}-${tier}"`;

export function versionFromIfMatch(header: string | undefined): number | null {
  // `*` asks only that the assistant exists, which every change checks anyway.
  if (header === undefined || header.trim() === "*") return null;
  const match = header.trim().match(/^(?:W\/)?(?:"(\d{1,9})(?:-[a-z]{1,16})?"|(\d{1,9}))$/);
  // An If-Match we cannot read matches no version, so the write is refused rather than applied blindly.
  return match ? Number(match[1] ?? match[2]) : 0;
}
