import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "@engram/test-support";
import { openStore } from "../src/db/store";
import { systemClock } from "../src/domain/kernel/clock";
import { DEFAULT_SESSION_POLICY, sessionService } from "../src/domain/people/sessions";
import { userService } from "../src/domain/people/users";
import type { Store } from "../src/domain/store";

/**
 * A sign-in checks the password against the hash it read, which takes a while (argon2); a password change that
 * commits meanwhile ends every session of the account, and the sign-in's session must not outlive it either.
 */
let store: Store;
beforeAll(async () => {
  store = await openStore(await freshDatabase());
});
afterAll(() => store?.close());

const OLD = "the old password, long enough";
const NEW = "the new password, long enough";

describe("a sign-in checked against a password changed meanwhile", () => {
  it("starts no session, and answers as a wrong password", async () => {
    const users = userService(store, { clock: systemClock });
    const { user } = await users.create({ email: "raced@example.com", password: OLD });
    // The password changes, and the change commits, between the sign-in's read of the hash and its session.
    const racing: Store = {
      ...store,
      users: {
        ...store.users,
        async findCredentials(email) {
          const credentials = await store.users.findCredentials(email);
          await users.setPassword(user.id, NEW);
          return credentials;
        },
      },
    };
    const raced = sessionService(racing, { clock: systemClock, policy: DEFAULT_SESSION_POLICY });
    await expect(raced.login({ email: user.email, password: OLD, address: "127.0.0.1" })).rejects.toMatchObject({ code: "invalid_credentials" });

    const sessions = sessionService(store, { clock: systemClock, policy: DEFAULT_SESSION_POLICY });
    await expect(sessions.login({ email: user.email, password: OLD, address: "127.0.0.1" })).rejects.toMatchObject({ code: "invalid_credentials" });
    const { secret } = await sessions.login({ email: user.email, password: NEW, address: "127.0.0.1" });
    expect(await sessions.resolve(secret)).toMatchObject({ userId: user.id });
  });
});
