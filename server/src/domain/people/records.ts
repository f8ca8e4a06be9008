import { type TRole, ZRole } from "@engram/contract";

/** Plain records of people, their memberships and sessions; repositories translate to and from storage rows. */

export const roles = ZRole.options;
export type Role = TRole;

export interface UserRecord {
  id: string;
  email: string;
  displayName: string;
  passwordChangedAt: Date;
  createdAt: Date;
}

export interface MembershipRecord {
  orgId: string;
  userId: string;
  role: Role;
  createdAt: Date;
}

export interface SessionRecord {
  id: string;
  userId: string;
  activeOrgId: string | null;
  csrfToken: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
}
