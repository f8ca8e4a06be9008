import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "@engram/test-support";
import { openStore } from "../src/db/store";
import { systemClock } from "../src/domain/kernel/clock";
import { DEFAULT_SESSION_POLICY, sessionService } from "../src/domain/people/sessions";
import { userService } from "../src/domain/people/users";
import type { Store } from "../src/domain/store";

/**
 * A sign-in, or a password change, checks the password against the hash it read, which takes a while (argon2); a
 * password change that commits meanwhile ends every session of the account, and what was checked against the old
 * password must not outlive it: no session from the sign-in, no second change.
 */
let store: Store;
beforeAll(async () => {
  store = await openStore(await freshDatabase());
});
afterAll(() => store?.close());

/** The store, but each read of the account's hash through `read` runs `meanwhile` before it answers. */
function changedAfter(read: "findCredentials" | "passwordHashOf", meanwhile: () => Promise<unknown>): Store {
  const reading = store.users[read] as (key: string) => Promise<unknown>;
  const answerLater = async (key: string) => {
    const answer = await reading(key);
    await meanwhile();
    return answer;
  };
  return { ...store, users: { ...store.users, [read]: answerLater } };
}

const OLD = "the old password, long enough";
const NEW = "the new password, long enough";

describe("a sign-in checked against a password changed meanwhile", () => {
  it("starts no session, and answers as a wrong password", async () => {
    const users = userService(store, { clock: systemClock });
    const { user } = await users.create({ email: "raced@example.com", password: OLD });
    // The password changes, and the change commits, between the sign-in's read of the hash and its session.
    const raced = sessionService(
      changedAfter("findCredentials", () => users.setPassword(user.id, NEW)),
      { clock: systemClock, policy: DEFAULT_SESSION_POLICY },
    );
    await expect(raced.login({ email: user.email, password: OLD, address: "127.0.0.1" })).rejects.toMatchObject({ code: "invalid_credentials" });

    const sessions = sessionService(store, { clock: systemClock, policy: DEFAULT_SESSION_POLICY });
    await expect(sessions.login({ email: user.email, password: OLD, address: "127.0.0.1" })).rejects.toMatchObject({ code: "invalid_credentials" });
    const { secret } = await sessions.login({ email: user.email, password: NEW, address: "127.0.0.1" });
    expect(await sessions.resolve(secret)).toMatchObject({ userId: user.id });
  });
});

describe("two password changes checked against the same password", () => {
  it("let the first win: the second is refused, sets nothing and starts no session", async () => {
    const users = userService(store, { clock: systemClock });
    const { user } = await users.create({ email: "twice@example.com", password: OLD });
    const sessions = sessionService(store, { clock: systemClock, policy: DEFAULT_SESSION_POLICY });
    const victim = (await sessions.login({ email: user.email, password: OLD, address: "127.0.0.1" })).signedIn;
    const intruder = (await sessions.login({ email: user.email, password: OLD, address: "127.0.0.1" })).signedIn;
    // The victim's change commits between the intruder's read of the hash and its own change.
    const raced = sessionService(
      changedAfter("passwordHashOf", () => sessions.changePassword(victim, { current: OLD, next: NEW }, "127.0.0.1")),
      { clock: systemClock, policy: DEFAULT_SESSION_POLICY },
    );
    await expect(raced.changePassword(intruder, { current: OLD, next: "the intruder's password" }, "127.0.0.1")).rejects.toMatchObject({ code: "invalid_credentials" });

    await expect(sessions.login({ email: user.email, password: "the intruder's password", address: "127.0.0.1" })).rejects.toMatchObject({ code: "invalid_credentials" });
    expect((await sessions.login({ email: user.email, password: NEW, address: "127.0.0.1" })).signedIn.userId).toBe(user.id);
  });
});
