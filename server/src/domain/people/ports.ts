import type { ListPage } from "../kernel/page-cursor";
import type { MembershipRecord, Role, SessionRecord, UserRecord } from "./records";

export interface NewUser {
  email: string;
  displayName: string;
  passwordHash: string;
  at: Date;
}

export interface UserRepository {
  /** Throws DuplicateKeyError when the email is taken. */
  create(user: NewUser): Promise<UserRecord>;
  find(id: string): Promise<UserRecord | null>;
  findByEmail(email: string): Promise<UserRecord | null>;
  /** The account and its stored argon2id hash in one read, for sign-in. */
  findCredentials(email: string): Promise<{ user: UserRecord; passwordHash: string } | null>;
  /** The stored argon2id hash, for checking the current password. */
  passwordHashOf(userId: string): Promise<string | null>;
  setPassword(userId: string, passwordHash: string, at: Date): Promise<void>;
  /**
   * Whether the stored hash is still `passwordHash`, holding the account's row until the transaction ends: a
   * password change committed meanwhile is seen, and one still to commit waits for the caller's.
   */
  holdPassword(userId: string, passwordHash: string): Promise<boolean>;
  /** Sets a new hash only while the stored one is still `from` (the one a change checked); false when it is not. */
  replacePassword(userId: string, from: string, to: string, at: Date): Promise<boolean>;
  count(): Promise<number>;
}

export interface MemberView extends MembershipRecord {
  email: string;
  displayName: string;
}

export interface MembershipRepository {
  /** Throws DuplicateKeyError when the person is already a member. */
  add(membership: { orgId: string; userId: string; role: Role; at: Date }): Promise<MembershipRecord>;
  find(orgId: string, userId: string): Promise<MembershipRecord | null>;
  /** Every organization a person belongs to, oldest membership first, with the organization's name and plan. */
  ofUser(userId: string): Promise<Array<MembershipRecord & { orgName: string; plan: string }>>;
  /** The organization's members, oldest membership first; with `page`, those after its position (the id a user's). */
  list(orgId: string, page?: ListPage): Promise<MemberView[]>;
  /** One member with their email and name. */
  view(orgId: string, userId: string): Promise<MemberView | null>;
  countOwners(orgId: string): Promise<number>;
  /** Changes the role only if it is still `from`; false when it was changed meanwhile. */
  changeRole(orgId: string, userId: string, from: Role, to: Role): Promise<boolean>;
  /** False when there was no such membership. */
  remove(orgId: string, userId: string): Promise<boolean>;
}

export interface NewSession {
  secretHash: string;
  userId: string;
  activeOrgId: string | null;
  csrfToken: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface SessionRepository {
  create(session: NewSession): Promise<SessionRecord>;
  findBySecretHash(secretHash: string): Promise<SessionRecord | null>;
  /** Records activity; only moves lastSeenAt forward. */
  touch(id: string, at: Date): Promise<void>;
  setActiveOrg(id: string, orgId: string): Promise<void>;
  delete(id: string): Promise<void>;
  /** Ends every session of a person; answers how many ended. */
  deleteForUser(userId: string): Promise<number>;
  /**
   * Ends at most `limit` of a person's sessions other than `sessionId` and past the `keep` most recently used
   * of them; answers how many ended.
   */
  deleteLeastRecent(userId: string, options: { sessionId: string; keep: number; limit: number }): Promise<number>;
  /** Removes at most `limit` sessions past their absolute end or idle since before `idleBefore`; answers how many. */
  deleteExpired(now: Date, idleBefore: Date, limit: number): Promise<number>;
}

/** What a claim on a sign-in window found: whether the check may run, and the window's failures so far. */
export interface ThrottleClaim {
  claimed: boolean;
  failures: number;
}

export interface LoginThrottleRepository {
  /**
   * Claims one password check against `key`'s window in one atomic statement: its pending checks go up by one
   * only while they and its failures are fewer than `limit`. Answers whether it was claimed, and the window's
   * failures so far.
   */
  claim(key: string, windowStart: number, limit: number): Promise<ThrottleClaim>;
  /** Ends a claimed check on each key's window in one statement: one pending check fewer, one failure more when `failed`. */
  settle(keys: readonly string[], windowStart: number, failed: boolean): Promise<void>;
  /** Deletes at most `limit` counts of windows that started before `windowStart`; answers how many. */
  deleteBefore(windowStart: number, limit: number): Promise<number>;
}
