import { randomBytes } from "node:crypto";
import type { Clock } from "../kernel/clock";
import { AppError, DuplicateKeyError } from "../kernel/errors";
import type { Store } from "../store";
import { checkNewPassword, hashPassword } from "./passwords";
import type { UserRecord } from "./records";

/** One @ between a local part and a domain, no spaces: `admin@localhost` is as valid as a public address. */
const EMAIL_SHAPE = /^[^\s@]{1,64}@[^\s@]{1,189}$/;

/** Emails compare case-insensitively: stored and looked up lower-cased. */
export function normalizeEmail(email: string): string {
  const normalized = email.trim().toLowerCase();
  if (!EMAIL_SHAPE.test(normalized)) throw new AppError("invalid_parameter", "That is not an email address.", "email");
  return normalized;
}

function checkDisplayName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 100) throw new AppError("invalid_parameter", "A display name has 1 to 100 characters.", "displayName");
  return trimmed;
}

/** A password made for someone who has not chosen one: 144 random bits, shown once. */
export const generatePassword = () => randomBytes(18).toString("base64url");

export function userService(store: Store, { clock }: { clock: Clock }) {
  return {
    /** Creates an account; with no password given, one is generated and returned (it is never shown again). */
    async create(input: { email: string; displayName?: string; password?: string }): Promise<{ user: UserRecord; password: string }> {
      const email = normalizeEmail(input.email);
      const displayName = checkDisplayName(input.displayName ?? email.split("@")[0]!);
      const password = input.password ?? generatePassword();
      checkNewPassword(password);
      if (await store.users.findByEmail(email)) throw new AppError("already_exists", `There is already an account for ${email}.`, "email");
      const passwordHash = await hashPassword(password);
      try {
        const user = await store.transaction((tx) => tx.users.create({ email, displayName, passwordHash, at: clock() }));
        return { user, password };
      } catch (error) {
        if (error instanceof DuplicateKeyError) throw new AppError("already_exists", `There is already an account for ${email}.`, "email");
        throw error;
      }
    },

    count: () => store.users.count(),

    async findByEmail(email: string): Promise<UserRecord> {
      const user = await store.users.findByEmail(normalizeEmail(email));
      if (!user) throw new AppError("user_not_found", `No account for ${email}.`, "email");
      return user;
    },

    /**
     * Sets a new password and ends every session of the person, in one transaction: an operator's reset, which
     * checks no current password (a signed-in person's own change is the session service's `changePassword`).
     */
    async setPassword(userId: string, password: string): Promise<void> {
      checkNewPassword(password);
      const passwordHash = await hashPassword(password);
      await store.transaction(async (tx) => {
        await tx.users.setPassword(userId, passwordHash, clock());
        await tx.sessions.deleteForUser(userId);
      });
    },
  };
}

export type UserService = ReturnType<typeof userService>;
