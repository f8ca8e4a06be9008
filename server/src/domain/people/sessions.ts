import { createHash, randomBytes } from "node:crypto";
import type { Plan } from "../access/records";
import type { Clock } from "../kernel/clock";
import { AppError } from "../kernel/errors";
import { deleteInStatements } from "../kernel/in-turns";
import type { Repositories, Store } from "../store";
import { DEFAULT_LOGIN_THROTTLE, type LoginThrottlePolicy, loginThrottle } from "./login-throttle";
import { checkNewPassword, hashPassword, passwordVerifier } from "./passwords";
import type { Role, SessionRecord } from "./records";
import { normalizeEmail } from "./users";

export interface SessionPolicy {
  /** A session unused this long ends. */
  idleMs: number;
  /** A session ends this long after sign-in, however active. */
  absoluteMs: number;
  /** A person keeps at most this many sessions: one more sign-in ends the least recently used. */
  maxPerPerson: number;
  throttle: LoginThrottlePolicy;
}

/**
 * Twelve hours idle, seven days at most: a working day's pause keeps you signed in, a week's does not. A
 * hundred sessions is more browsers and scripts than anyone signs in from at once.
 */
export const DEFAULT_SESSION_POLICY: SessionPolicy = {
  idleMs: 12 * 60 * 60 * 1000,
  absoluteMs: 7 * 24 * 60 * 60 * 1000,
  maxPerPerson: 100,
  throttle: DEFAULT_LOGIN_THROTTLE,
};

/**
 * Sessions past the limit that one sign-in ends, within what one statement binds. More are past it only where
 * they piled up before the limit (or it was lowered); each sign-in then ends another 500.
 */
const SESSIONS_ENDED_PER_SIGN_IN = 500;

/** Activity is written at most this often, so reading a page is not a database write per request. */
const TOUCH_INTERVAL_MS = 60_000;

export interface OrganizationMembership {
  id: string;
  name: string;
  plan: Plan;
  role: Role;
}

/** Who a session-backed request acts as. */
export interface SignedIn {
  sessionId: string;
  userId: string;
  email: string;
  displayName: string;
  csrfToken: string;
  organizations: OrganizationMembership[];
  /** The organization the session acts in; null for someone who belongs to none. */
  organization: OrganizationMembership | null;
  expiresAt: Date;
}

const hashSecret = (secret: string) => createHash("sha256").update(secret).digest("hex");
const newSecret = () => randomBytes(32).toString("base64url");
const wrongCredentials = () => new AppError("invalid_credentials", "The email or password is wrong.");
const wrongCurrentPassword = () => new AppError("invalid_credentials", "The current password is wrong.");

export function sessionService(store: Store, { clock, policy }: { clock: Clock; policy: SessionPolicy }) {
  const throttle = loginThrottle(store.loginThrottle, policy.throttle, clock);
  const verifyPassword = passwordVerifier();

  async function signedInFrom(session: SessionRecord): Promise<SignedIn | null> {
    const user = await store.users.find(session.userId);
    if (!user) return null;
    const organizations = (await store.memberships.ofUser(user.id)).map((m) => ({ id: m.orgId, name: m.orgName, plan: m.plan as Plan, role: m.role }));
    // A session whose organization the person has since left acts in their first remaining one.
    const organization = organizations.find((o) => o.id === session.activeOrgId) ?? organizations[0] ?? null;
    return { sessionId: session.id, userId: user.id, email: user.email, displayName: user.displayName, csrfToken: session.csrfToken, organizations, organization, expiresAt: session.expiresAt };
  }

  /**
   * A sign-in's new session, started only while `checkedHash` is still the account's password hash (a check
   * against a password changed meanwhile would otherwise outlive the change, which ends every session).
   */
  async function start(userId: string, activeOrgId: string | null, checkedHash: string): Promise<{ secret: string; session: SessionRecord }> {
    return store.transaction(async (tx) => {
      if (!(await tx.users.holdPassword(userId, checkedHash))) throw wrongCredentials();
      const started = await newSession(tx, userId, activeOrgId);
      // A person's sessions stay few, so a password change, which ends them all in one statement, stays short.
      await tx.sessions.deleteLeastRecent(userId, { sessionId: started.session.id, keep: policy.maxPerPerson - 1, limit: SESSIONS_ENDED_PER_SIGN_IN });
      return started;
    });
  }

  async function newSession(tx: Repositories, userId: string, activeOrgId: string | null): Promise<{ secret: string; session: SessionRecord }> {
    const secret = newSecret();
    const at = clock();
    const session = await tx.sessions.create({ secretHash: hashSecret(secret), userId, activeOrgId, csrfToken: newSecret(), createdAt: at, expiresAt: new Date(at.getTime() + policy.absoluteMs) });
    return { secret, session };
  }

  async function logout(secret: string): Promise<void> {
    const session = await store.sessions.findBySecretHash(hashSecret(secret));
    if (session) await store.sessions.delete(session.id);
  }

  return {
    /**
     * Checks the password and starts a new session (any session the client already had ends: the id is
     * never reused across sign-ins). A wrong email and a wrong password answer alike, after the same work.
     */
    async login(input: { email: string; password: string; address: string; previousSecret?: string }) {
      let email: string;
      try {
        email = normalizeEmail(input.email);
      } catch {
        email = input.email.trim().toLowerCase().slice(0, 254);
      }
      const credentials = await throttle.guard(email, input.address, async () => {
        const found = await store.users.findCredentials(email);
        return (await verifyPassword(found?.passwordHash ?? null, input.password)) ? found : null;
      });
      if (!credentials) throw wrongCredentials();
      const { user } = credentials;
      const [first] = await store.memberships.ofUser(user.id);
      const { secret, session } = await start(user.id, first?.orgId ?? null, credentials.passwordHash);
      if (input.previousSecret) await logout(input.previousSecret);
      const signedIn = await signedInFrom(session);
      if (!signedIn) throw wrongCredentials();
      return { secret, signedIn };
    },

    /** The session behind a cookie's secret, or null when there is none or it has ended (idle or absolute). */
    async resolve(secret: string): Promise<SignedIn | null> {
      const session = await store.sessions.findBySecretHash(hashSecret(secret));
      if (!session) return null;
      const now = clock();
      if (now >= session.expiresAt || now.getTime() - session.lastSeenAt.getTime() >= policy.idleMs) {
        await store.sessions.delete(session.id);
        return null;
      }
      if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) await store.sessions.touch(session.id, now);
      return signedInFrom(session);
    },

    logout,

    async switchOrganization(current: SignedIn, orgId: string): Promise<SignedIn> {
      const organization = current.organizations.find((o) => o.id === orgId);
      if (!organization) throw new AppError("organization_not_found", "You are not a member of that organization.", "organizationId");
      await store.sessions.setActiveOrg(current.sessionId, orgId);
      return { ...current, organization };
    },

    /**
     * Changes a signed-in person's password: the current one is checked, throttled like signing in (a stolen
     * session is no guessing oracle), and in one transaction the new one replaces it only if it is still the one
     * checked (a change racing another, both checked against the same password, would otherwise win too), every
     * session of the person ends, and a new one starts in the same organization.
     */
    async changePassword(current: SignedIn, passwords: { current: string; next: string }, address: string): Promise<{ secret: string; signedIn: SignedIn }> {
      const checked = await throttle.guard(current.email, address, async () => {
        const hash = await store.users.passwordHashOf(current.userId);
        return (await verifyPassword(hash, passwords.current)) ? hash : null;
      });
      if (checked === null) throw wrongCurrentPassword();
      checkNewPassword(passwords.next);
      const next = await hashPassword(passwords.next);
      const { secret, session } = await store.transaction(async (tx) => {
        if (!(await tx.users.replacePassword(current.userId, checked, next, clock()))) throw wrongCurrentPassword();
        await tx.sessions.deleteForUser(current.userId);
        return newSession(tx, current.userId, current.organization?.id ?? null);
      });
      const signedIn = await signedInFrom(session);
      if (!signedIn) throw new AppError("not_signed_in", "The account no longer exists.");
      return { secret, signedIn };
    },

    /** Sweeps sessions that have ended (resolve() refuses them anyway) and past sign-in failure counts. */
    async sweep(): Promise<void> {
      const now = clock();
      const idleBefore = new Date(now.getTime() - policy.idleMs);
      await deleteInStatements((limit) => store.sessions.deleteExpired(now, idleBefore, limit));
      await throttle.sweep();
    },
  };
}

export type SessionService = ReturnType<typeof sessionService>;
