import { AppError } from "../kernel/errors";
import type { Role } from "./records";

/** A signed-in person acting in one organization. */
export interface OrgActor {
  orgId: string;
  userId: string;
  role: Role;
  /** How the person appears in histories and change logs: `user:<email>`. */
  label: string;
}

export const managesOrganization = (role: Role) => role === "owner" || role === "admin";

export function requireManager(actor: OrgActor, what: string): void {
  if (!managesOrganization(actor.role)) throw new AppError("permission_denied", `Only owners and admins ${what}.`);
}
