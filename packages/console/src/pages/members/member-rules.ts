import type { TRole } from "@engram/contract";

export const roleNames: Record<TRole, string> = { owner: "Owner", admin: "Admin", member: "Member" };

/**
 * Why the viewer may not change this member, or null when they may. The server decides; this only keeps
 * controls that would be refused out of the way: members manage no one, only owners touch the owner role.
 */
export function whyNotManage(viewer: TRole | undefined, target: TRole): string | null {
  if (viewer !== "owner" && viewer !== "admin") return "Only owners and admins manage members.";
  if (viewer === "admin" && target === "owner") return "Only owners change or remove an owner.";
  return null;
}

/** The roles the viewer may grant: only owners grant the owner role. */
export const grantableRoles = (viewer: TRole | undefined): TRole[] => (viewer === "owner" ? ["owner", "admin", "member"] : ["admin", "member"]);
