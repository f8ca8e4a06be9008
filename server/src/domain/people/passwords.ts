import { hash, verify } from "@node-rs/argon2";
import { AppError } from "../kernel/errors";

/** Passwords are hashed with argon2id at the library's defaults (19 MiB, 2 passes: OWASP's recommendation). */
export const hashPassword = (password: string): Promise<string> => hash(password);

export const passwordLimits = { minLength: 10, maxLength: 256 } as const;

/** Length only: long passphrases beat composition rules, and the upper bound keeps hashing cheap. */
export function checkNewPassword(password: string): void {
  if ([...password].length < passwordLimits.minLength) {
    throw new AppError("invalid_parameter", `A password needs at least ${passwordLimits.minLength} characters.`, "password");
  }
  if (password.length > passwordLimits.maxLength) {
    throw new AppError("invalid_parameter", `A password may have at most ${passwordLimits.maxLength} characters.`, "password");
  }
}

/**
 * Verifies against the stored hash, or, for an unknown account, against a hash of nothing in particular, so
 * both take the same time and a wrong email cannot be told from a wrong password.
 */
export function passwordVerifier() {
  const decoy = hashPassword("engram decoy password: never matches");
  return async (storedHash: string | null, password: string): Promise<boolean> => {
    const matches = await verify(storedHash ?? (await decoy), password).catch(() => false);
    return storedHash !== null && matches;
  };
}
