import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rawRequest, startServerOn, startTestServer, type TestServer } from "@engram/test-support";
import { DEFAULT_LOGIN_THROTTLE } from "../../src/domain/people/login-throttle";
import { applicationWith, manualClock, sessionSetCookie } from "./sessions-support";

const throttle = { ...DEFAULT_LOGIN_THROTTLE, perAccount: 3, perAddress: 5, windowSeconds: 60 };
const windowMs = throttle.windowSeconds * 1000;
const application = applicationWith({ sessions: { throttle } });
const clock = manualClock();

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ now: clock.now, application });
});
afterAll(() => server?.stop());

// Every request comes from 127.0.0.1, whose count is shared by the whole file: each test starts in a window of
// its own, 15 s in.
let windowStart = 0;
beforeEach(() => {
  windowStart += 10 * windowMs;
  clock.set(windowStart + 15_000);
});

const login = (email: string, password: string, url = server.url) => rawRequest(url, "/api/auth/login", { body: JSON.stringify({ email, password }) });

async function newPerson() {
  return server.newPerson(await server.newOrg());
}

/** A refusal for too many failures, `retryAfter` seconds before the window ends. */
function expectThrottled(res: Awaited<ReturnType<typeof login>>, retryAfter: number) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ success: false, error: "login_throttled", message: expect.any(String), retryAfter });
  expect(res.headers.get("retry-after")).toBe(String(retryAfter));
  expect(sessionSetCookie(res.headers)).toBeUndefined();
}

describe("login throttling", () => {
  it("locks an account after its failures; another account from the same address signs in until the address's limit", async () => {
    const alice = await newPerson();
    const bob = await newPerson();
    const carol = await newPerson();
    for (let i = 0; i < throttle.perAccount; i++) expect((await login(alice.email, "wrong password")).status).toBe(401);
    expectThrottled(await login(alice.email, "wrong password"), 45);
    // While locked, even the right password is refused.
    expectThrottled(await login(alice.email, alice.password), 45);

    expect((await login(bob.email, bob.password)).status).toBe(200);
    for (let i = throttle.perAccount; i < throttle.perAddress; i++) expect((await login(bob.email, "wrong password")).status).toBe(401);
    // Five failures from this address: every account is refused from it now.
    expectThrottled(await login(bob.email, bob.password), 45);
    expectThrottled(await login(carol.email, carol.password), 45);
  });

  it("counts an unknown email exactly like a known one", async () => {
    const known = await newPerson();
    const unknown = `nobody-${known.userId}@example.com`;
    const attempts = async (email: string) => {
      const answers = [];
      for (let i = 0; i <= throttle.perAccount; i++) {
        const res = await login(email, "wrong password");
        answers.push({ status: res.status, body: res.body, retryAfter: res.headers.get("retry-after") });
      }
      return answers;
    };
    const forKnown = await attempts(known.email);
    // A window of its own, at the same offset, so the address's count starts again too.
    clock.set(windowStart + 5 * windowMs + 15_000);
    const forUnknown = await attempts(unknown);
    expect(forKnown.map((a) => a.status)).toEqual([401, 401, 401, 429]);
    expect(forUnknown).toEqual(forKnown);
  });

  it("counts an email however it is spelled", async () => {
    const person = await newPerson();
    const [local, domain] = person.email.split("@");
    for (const spelling of [person.email.toUpperCase(), ` ${person.email} `, `${local}@${domain!.toUpperCase()}`]) {
      expect((await login(spelling, "wrong password")).status).toBe(401);
    }
    expectThrottled(await login(person.email, person.password), 45);
  });

  it("unlocks when the window has passed on the server's clock", async () => {
    const person = await newPerson();
    for (let i = 0; i < throttle.perAccount; i++) expect((await login(person.email, "wrong password")).status).toBe(401);
    clock.set(windowStart + windowMs - 1000);
    expectThrottled(await login(person.email, person.password), 1);
    clock.set(windowStart + windowMs);
    expect((await login(person.email, person.password)).status).toBe(200);
  });

  it("shares the counts between server processes", async () => {
    const person = await newPerson();
    const other = await startServerOn(server.database, { now: clock.now, application });
    try {
      const urls = [server.url, other.url, server.url];
      for (const url of urls) expect((await login(person.email, "wrong password", url)).status).toBe(401);
      expectThrottled(await login(person.email, person.password, other.url), 45);
      expectThrottled(await login(person.email, person.password, server.url), 45);
    } finally {
      await other.close();
    }
  });

  it("counts only failures: successful sign-ins, and attempts refused while locked, leave the counts alone", async () => {
    const alice = await newPerson();
    const bob = await newPerson();
    for (let i = 0; i < throttle.perAddress + 1; i++) expect((await login(alice.email, alice.password)).status).toBe(200);
    for (let i = 0; i < throttle.perAccount; i++) expect((await login(alice.email, "wrong password")).status).toBe(401);
    for (let i = 0; i < 2 * throttle.perAddress; i++) expectThrottled(await login(alice.email, "wrong password"), 45);
    // Three failures from this address so far: Bob, behind the same address, is not locked out by Alice's client.
    expect((await login(bob.email, bob.password)).status).toBe(200);
  });

  it("counts wrong current passwords of a password change like failed sign-ins", async () => {
    const orgId = await server.newOrg();
    // A stolen session must not make a password-guessing oracle that sign-in throttling does not see.
    const browser = await server.signedIn(orgId);
    const change = (currentPassword: string) => browser.post("/api/auth/password", { currentPassword, newPassword: "a brand new passphrase" });
    for (let i = 0; i < throttle.perAccount; i++) expect((await change("wrong password")).status).toBe(401);
    expectThrottled(await change(browser.password), 45);
    expectThrottled(await login(browser.email, browser.password), 45);
    expect((await browser.get("/api/auth/me")).status).toBe(200);
  });

  it("does not let concurrent guesses past the limit", async () => {
    const person = await newPerson();
    const guesses = await Promise.all(Array.from({ length: 4 * throttle.perAccount }, (_, i) => login(person.email, `wrong password ${i}`)));
    const answered = guesses.map((res) => res.status);
    // Each 401 is a guess checked against the password: no more than the limit, whatever the interleaving.
    expect(answered.filter((status) => status === 401).length).toBeLessThanOrEqual(throttle.perAccount);
    expect(answered.filter((status) => status !== 401).every((status) => status === 429)).toBe(true);
  });

  it("lets concurrent sign-ins with the right password through, more of them than either limit", async () => {
    const person = await newPerson();
    const count = 3 * throttle.perAddress;
    const answers = await Promise.all(Array.from({ length: count }, () => login(person.email, person.password)));
    expect(answers.map((res) => res.status)).toEqual(Array(count).fill(200));
    // Nothing was counted: the account still has all its failures to spend.
    for (let i = 0; i < throttle.perAccount; i++) expect((await login(person.email, "wrong password")).status).toBe(401);
    expectThrottled(await login(person.email, person.password), 45);
  });

  it("checks no more wrong passwords than the limit when right and wrong ones are sent together", async () => {
    const person = await newPerson();
    const passwords = Array.from({ length: 4 * throttle.perAccount }, (_, i) => (i % 2 === 0 ? person.password : `wrong password ${i}`));
    const answers = await Promise.all(passwords.map((password) => login(person.email, password)));
    const wrong = answers.filter((_, i) => passwords[i] !== person.password).map((res) => res.status);
    expect(wrong.filter((status) => status === 401).length).toBeLessThanOrEqual(throttle.perAccount);
    // A right password is let in unless the wrong ones locked the account before it was checked.
    for (const [i, res] of answers.entries()) expect(passwords[i] === person.password ? [200, 429] : [401, 429]).toContain(res.status);
  });
});
