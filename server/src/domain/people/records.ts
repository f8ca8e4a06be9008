/** Plain records of people, their memberships and sessions; repositories translate to and from storage rows. */

export const roles = ["owner", "admin", "member"] as const;
export type Role = (typeof roles)[number];

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
