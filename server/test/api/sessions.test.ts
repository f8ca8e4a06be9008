import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, SessionClient, startTestServer, type TestServer } from "@engram/test-support";
import { applicationWith, cookieValueOf, httpRequest, manualClock, session, sessionSetCookie, withCookie } from "./sessions-support";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

const loginRaw = (baseUrl: string, email: string, password: string, headers: Record<string, string> = {}) =>
  rawRequest(baseUrl, "/api/auth/login", { body: JSON.stringify({ email, password }), headers });

const notSignedIn = { success: false, error: "not_signed_in", message: expect.any(String) };

describe("the session cookie", () => {
  it("is HttpOnly, SameSite=Lax, Path=/api, expires at the session's absolute end, and is not Secure on plain HTTP to loopback", async () => {
    const orgId = await server.newOrg();
    const person = await server.newPerson(orgId, "admin");
    const res = await loginRaw(server.url, person.email, person.password);
    expect(res.status).toBe(200);
    const line = sessionSetCookie(res.headers)!;
    expect(line).toBeDefined();
    const attributes = line.split(";").slice(1).map((part) => part.trim());
    expect(cookieValueOf(line)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(attributes).toContain("HttpOnly");
    expect(attributes).toContain("SameSite=Lax");
    expect(attributes).toContain("Path=/api");
    expect(attributes).not.toContain("Secure");
    const expires = attributes.find((a) => a.startsWith("Expires="))!;
    expect(new Date(expires.slice("Expires=".length)).getTime()).toBe(Math.floor(Date.parse(res.body.expiresAt) / 1000) * 1000);
    // The absolute end is a week after sign-in by default.
    expect(Date.parse(res.body.expiresAt) - Date.now()).toBeGreaterThan(7 * 24 * 3600_000 - 60_000);
    expect(res.body).toMatchObject({
      success: true,
      user: { id: person.userId, email: person.email },
      organizations: [{ id: orgId, role: "admin" }],
      activeOrganizationId: orgId,
      csrfToken: expect.any(String),
    });
  });

  it("is Secure with the default `auto` when the request's host is not this machine", async () => {
    const orgId = await server.newOrg();
    const person = await server.newPerson(orgId);
    const res = await httpRequest(server.url, "/api/auth/login", { method: "POST", headers: { host: "engram.example.com" }, body: { email: person.email, password: person.password } });
    expect(res.status).toBe(200);
    const line = res.headers["set-cookie"]!.find((l) => l.startsWith("engram_session="))!;
    expect(line.split(";").map((a) => a.trim())).toContain("Secure");
  });

  it("is Secure on loopback too with cookieSecure `always`", async () => {
    const secureServer = await startTestServer({ application: applicationWith({ cookieSecure: "always" }) });
    try {
      const orgId = await secureServer.newOrg();
      const person = await secureServer.newPerson(orgId);
      const res = await loginRaw(secureServer.url, person.email, person.password);
      expect(res.status).toBe(200);
      expect(sessionSetCookie(res.headers)!.split(";").map((a) => a.trim())).toContain("Secure");
    } finally {
      await secureServer.stop();
    }
  });

  it("signs the browser in: GET /api/auth/me answers who it is, and nothing answers without it", async () => {
    const orgId = await server.newOrg();
    const browser = await server.signedIn(orgId, "member");
    const me = await browser.get("/api/auth/me");
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: { id: browser.userId, email: browser.email }, activeOrganizationId: orgId, organizations: [{ id: orgId, role: "member" }] });
    const stranger = await new SessionClient(server.url).get("/api/auth/me");
    expect(stranger).toMatchObject({ status: 401, body: notSignedIn });
  });

  it("answers a wrong email exactly as a wrong password", async () => {
    const orgId = await server.newOrg();
    const person = await server.newPerson(orgId);
    const unknownEmail = `nobody-${person.userId}@example.com`;
    // Each wrong email is verified against a decoy hash, so it costs what a wrong password costs. Timing is
    // checked only coarsely (the best of a few tries each, within a factor of five): skipping the hash
    // entirely would be many times faster, while a busy machine never skews the best of three that far.
    const timed = async (email: string, password: string) => {
      const started = performance.now();
      const res = await loginRaw(server.url, email, password);
      return { res, ms: performance.now() - started };
    };
    const wrongPassword: Array<Awaited<ReturnType<typeof timed>>> = [];
    const wrongEmail: Array<Awaited<ReturnType<typeof timed>>> = [];
    for (let i = 0; i < 3; i++) {
      wrongPassword.push(await timed(person.email, "not the password at all"));
      wrongEmail.push(await timed(unknownEmail, person.password));
    }
    for (const { res } of [...wrongPassword, ...wrongEmail]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: "invalid_credentials", message: wrongPassword[0]!.res.body.message });
      expect(sessionSetCookie(res.headers)).toBeUndefined();
    }
    const best = (tries: typeof wrongEmail) => Math.min(...tries.map((t) => t.ms));
    expect(best(wrongEmail) * 5).toBeGreaterThan(best(wrongPassword));
    expect(best(wrongPassword) * 5).toBeGreaterThan(best(wrongEmail));
  });
});

describe("ending and rotating sessions", () => {
  it("logout ends the session on the server and clears the cookie", async () => {
    const orgId = await server.newOrg();
    const browser = await server.signedIn(orgId);
    const cookie = (await browser.sessionCookie())!;
    const out = await browser.post("/api/auth/logout");
    expect(out).toMatchObject({ status: 200, body: { success: true } });
    const cleared = sessionSetCookie(out.headers)!;
    expect(cookieValueOf(cleared)).toBe("");
    expect(cleared).toMatch(/Expires=Thu, 01 Jan 1970/);
    expect(cleared).toMatch(/Path=\/api/);
    expect(await browser.sessionCookie()).toBeNull();
    // The old value, replayed by hand, is no session any more.
    expect(await withCookie(server.url, "/api/auth/me", session(cookie))).toMatchObject({ status: 401, body: notSignedIn });
    expect(await server.db.session.count({ where: { userId: browser.userId } })).toBe(0);
  });

  it("logout with a session that has already ended still answers 200 and clears the stale cookie", async () => {
    const orgId = await server.newOrg();
    const browser = await server.signedIn(orgId);
    await server.db.session.deleteMany({ where: { userId: browser.userId } });
    const out = await browser.post("/api/auth/logout");
    expect(out).toMatchObject({ status: 200, body: { success: true } });
    expect(cookieValueOf(sessionSetCookie(out.headers)!)).toBe("");
    expect(await browser.sessionCookie()).toBeNull();
  });

  it("a second sign-in gets a new cookie and ends the session the browser sent with it; other browsers keep theirs", async () => {
    const orgId = await server.newOrg();
    const browser = await server.signedIn(orgId);
    const elsewhere = new SessionClient(server.url);
    await elsewhere.signIn(browser.email, browser.password);
    const first = (await browser.sessionCookie())!;
    const firstCsrf = browser.csrfToken;

    await browser.signIn(browser.email, browser.password);
    const second = (await browser.sessionCookie())!;
    expect(second).not.toBe(first);
    expect(browser.csrfToken).not.toBe(firstCsrf);
    expect((await withCookie(server.url, "/api/auth/me", session(first))).status).toBe(401);
    expect((await withCookie(server.url, "/api/auth/me", session(second))).status).toBe(200);
    expect((await elsewhere.get("/api/auth/me")).status).toBe(200);
    expect(await server.db.session.count({ where: { userId: browser.userId } })).toBe(2);
  });

  it("a failed sign-in leaves the session the browser already had", async () => {
    const orgId = await server.newOrg();
    const browser = await server.signedIn(orgId);
    const res = await browser.post("/api/auth/login", { email: browser.email, password: "wrong password here" });
    expect(res.status).toBe(401);
    expect((await browser.get("/api/auth/me")).status).toBe(200);
  });
});

describe("session lifetimes on the server's clock", () => {
  const minute = 60_000;
  const idleMs = 30 * minute;
  const absoluteMs = 120 * minute;
  const clock = manualClock();
  let timed: TestServer;
  beforeAll(async () => {
    timed = await startTestServer({ now: clock.now, application: applicationWith({ sessions: { idleMs, absoluteMs } }) });
  });
  afterAll(() => timed?.stop());

  /** A fresh person signed in at `ms` after the clock's start. */
  async function signedInAt(ms: number) {
    clock.set(ms);
    const orgId = await timed.newOrg();
    const person = await timed.newPerson(orgId);
    const browser = new SessionClient(timed.url);
    const login = await browser.signIn(person.email, person.password);
    expect(Date.parse(login.body.expiresAt)).toBe(clock.start + ms + absoluteMs);
    return { browser, person };
  }
  const meAt = (browser: SessionClient, ms: number) => {
    clock.set(ms);
    return browser.get("/api/auth/me");
  };

  it("ends a session unused for the idle time: just before still works, at the limit it does not", async () => {
    const early = await signedInAt(0);
    expect((await meAt(early.browser, idleMs - 1000)).status).toBe(200);
    const late = await signedInAt(0);
    expect(await meAt(late.browser, idleMs)).toMatchObject({ status: 401, body: notSignedIn });
    expect(await timed.db.session.count({ where: { userId: late.person.userId } })).toBe(0);
    // Once refused it stays refused, even if the clock went back.
    expect((await meAt(late.browser, 0)).status).toBe(401);
  });

  it("activity before the idle limit extends the session, past the first idle time", async () => {
    const { browser } = await signedInAt(0);
    // Each step is more than the minute between activity writes and less than the idle time.
    const step = 20 * minute;
    for (let at = step; at <= 4 * step; at += step) expect((await meAt(browser, at)).status, `at ${at / minute} min`).toBe(200);
    // Well before the absolute end, idle from the last activity ends it.
    expect((await meAt(browser, 4 * step + idleMs)).status).toBe(401);
    expect(4 * step + idleMs).toBeLessThan(absoluteMs);
  });

  it("ends a session at its absolute end however active it is", async () => {
    const { browser, person } = await signedInAt(0);
    for (let at = 25 * minute; at < absoluteMs; at += 25 * minute) expect((await meAt(browser, at)).status).toBe(200);
    expect((await meAt(browser, absoluteMs - 1000)).status).toBe(200);
    expect(await meAt(browser, absoluteMs)).toMatchObject({ status: 401, body: notSignedIn });
    expect(await timed.db.session.count({ where: { userId: person.userId } })).toBe(0);
  });
});

describe("how many sessions a person keeps", () => {
  const clock = manualClock();
  let capped: TestServer;
  beforeAll(async () => {
    capped = await startTestServer({ now: clock.now, application: applicationWith({ sessions: { maxPerPerson: 3 } }) });
  });
  afterAll(() => capped?.stop());

  it("one sign-in past the limit ends the least recently used session, not the oldest", async () => {
    const orgId = await capped.newOrg();
    const person = await capped.newPerson(orgId);
    const browsers: SessionClient[] = [];
    for (const minutes of [0, 2, 4]) {
      clock.set(minutes * 60_000);
      const browser = new SessionClient(capped.url);
      await browser.signIn(person.email, person.password);
      browsers.push(browser);
    }
    // The first browser is used again (more than the minute between activity writes later), so the second is now
    // the least recently used.
    clock.set(6 * 60_000);
    expect((await browsers[0]!.get("/api/auth/me")).status).toBe(200);

    clock.set(8 * 60_000);
    const fourth = new SessionClient(capped.url);
    await fourth.signIn(person.email, person.password);
    const statuses = async () => Promise.all([...browsers, fourth].map(async (browser) => (await browser.get("/api/auth/me")).status));
    expect(await statuses()).toEqual([200, 401, 200, 200]);
    expect(await capped.db.session.count({ where: { userId: person.userId } })).toBe(3);

    // A password change then has three sessions to end, and starts the one it answers with.
    const changed = await fourth.post("/api/auth/password", { currentPassword: person.password, newPassword: "a brand new passphrase" });
    expect(changed.status).toBe(200);
    expect(await statuses()).toEqual([401, 401, 401, 200]);
    expect(await capped.db.session.count({ where: { userId: person.userId } })).toBe(1);
  });

  it("other people's sessions do not count towards a person's limit", async () => {
    const orgId = await capped.newOrg();
    const [one, two] = [await capped.newPerson(orgId), await capped.newPerson(orgId)];
    const ofOne: SessionClient[] = [];
    for (let i = 0; i < 3; i++) {
      const browser = new SessionClient(capped.url);
      await browser.signIn(one.email, one.password);
      ofOne.push(browser);
    }
    for (let i = 0; i < 3; i++) await new SessionClient(capped.url).signIn(two.email, two.password);
    for (const browser of ofOne) expect((await browser.get("/api/auth/me")).status).toBe(200);
  });

  it("a sign-in keeps its own session, even in the same moment as the others or on a clock behind theirs", async () => {
    clock.set(60 * 60_000);
    const orgId = await capped.newOrg();
    const person = await capped.newPerson(orgId);
    for (let i = 0; i < 6; i++) {
      const browser = new SessionClient(capped.url);
      await browser.signIn(person.email, person.password);
      expect((await browser.get("/api/auth/me")).status, `sign-in ${i + 1}`).toBe(200);
    }
    // Another process's clock may read a little earlier: its new session is then the least recently used.
    clock.set(59 * 60_000);
    const behind = new SessionClient(capped.url);
    await behind.signIn(person.email, person.password);
    expect((await behind.get("/api/auth/me")).status).toBe(200);
    expect(await capped.db.session.count({ where: { userId: person.userId } })).toBe(3);
  });
});

describe("changing the password", () => {
  it("ends the person's other sessions and replaces this one's cookie", async () => {
    const orgId = await server.newOrg();
    const browser = await server.signedIn(orgId);
    const otherBrowser = new SessionClient(server.url);
    await otherBrowser.signIn(browser.email, browser.password);
    const oldCookie = (await browser.sessionCookie())!;
    const newPassword = "a brand new passphrase";

    const changed = await browser.post("/api/auth/password", { currentPassword: browser.password, newPassword });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ success: true, user: { id: browser.userId }, activeOrganizationId: orgId });
    const newCookie = (await browser.sessionCookie())!;
    expect(newCookie).not.toBe(oldCookie);

    expect(await otherBrowser.get("/api/auth/me")).toMatchObject({ status: 401, body: notSignedIn });
    expect((await withCookie(server.url, "/api/auth/me", session(oldCookie))).status).toBe(401);
    expect((await browser.get("/api/auth/me")).status).toBe(200);
    expect(await server.db.session.count({ where: { userId: browser.userId } })).toBe(1);

    expect((await loginRaw(server.url, browser.email, browser.password)).status).toBe(401);
    expect((await loginRaw(server.url, browser.email, newPassword)).status).toBe(200);
  });

  it("refuses a wrong current password (401) and a short new one (400), ending nothing", async () => {
    const orgId = await server.newOrg();
    const browser = await server.signedIn(orgId);
    const wrong = await browser.post("/api/auth/password", { currentPassword: "not my password", newPassword: "a brand new passphrase" });
    expect(wrong).toMatchObject({ status: 401, body: { success: false, error: "invalid_credentials" } });
    const short = await browser.post("/api/auth/password", { currentPassword: browser.password, newPassword: "short" });
    expect(short).toMatchObject({ status: 400, body: { success: false, error: "invalid_parameter" } });
    expect((await browser.get("/api/auth/me")).status).toBe(200);
    expect((await loginRaw(server.url, browser.email, browser.password)).status).toBe(200);
  });
});

describe("organizations of a session", () => {
  it("switches the active organization among the person's own, and refuses any other with 404", async () => {
    const first = await server.newOrg();
    const second = await server.newOrg({ plan: "spark" });
    const foreign = await server.newOrg();
    const person = await server.newPerson(first, "member");
    await server.services.memberships.add(second, person.userId, "admin", "cli");
    const browser = new SessionClient(server.url);
    const login = await browser.signIn(person.email, person.password);
    expect(login.body.activeOrganizationId).toBe(first);
    expect(login.body.organizations).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: first, role: "member" }), expect.objectContaining({ id: second, role: "admin", plan: "spark" })]),
    );

    const switched = await browser.put("/api/auth/organization", { organizationId: second });
    expect(switched).toMatchObject({ status: 200, body: { activeOrganizationId: second } });
    expect((await browser.get("/api/auth/me")).body.activeOrganizationId).toBe(second);
    expect((await browser.get("/api/organization")).body).toMatchObject({ organization: { id: second }, role: "admin" });

    for (const organizationId of [foreign, "org_does_not_exist"]) {
      const refused = await browser.put("/api/auth/organization", { organizationId });
      expect(refused).toMatchObject({ status: 404, body: { success: false, error: "organization_not_found" } });
    }
    expect((await browser.get("/api/auth/me")).body.activeOrganizationId).toBe(second);
  });

  it("someone in no organization may ask who they are, and nothing else", async () => {
    const { user, password } = await server.services.users.create({ email: `loner-${Date.now()}@example.com` });
    const browser = new SessionClient(server.url);
    await browser.signIn(user.email, password);
    expect(await browser.get("/api/auth/me")).toMatchObject({ status: 200, body: { organizations: [], activeOrganizationId: null } });
    expect(await browser.get("/api/assistants")).toMatchObject({ status: 404, body: { success: false, error: "organization_not_found" } });
    expect(await browser.post("/api/assistants", { name: "Mine", type: "employee_personal" })).toMatchObject({ status: 404, body: { error: "organization_not_found" } });
    expect(await browser.get("/api/organization")).toMatchObject({ status: 404, body: { error: "organization_not_found" } });
  });
});

describe("what a session is not", () => {
  it("is stored only as a hash: no stored row holds the cookie's value", async () => {
    const orgId = await server.newOrg();
    const browser = await server.signedIn(orgId);
    const cookie = (await browser.sessionCookie())!;
    const rows = await server.db.session.findMany();
    expect(rows.some((row) => row.userId === browser.userId)).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(cookie);
  });

  it("takes no access token on /api, even beside a valid cookie", async () => {
    const orgId = await server.newOrg();
    const token = await server.newToken(orgId);
    const browser = await server.signedIn(orgId, "owner");
    for (const authorization of [`Bearer ${token}`, "Basic dXNlcjpwYXNz"]) {
      for (const [method, path] of [["GET", "/api/auth/me"], ["GET", "/api/assistants"], ["POST", "/api/auth/logout"]] as const) {
        const res = await browser.request(path, { method, body: method === "POST" ? {} : undefined, headers: { authorization } });
        expect(res, `${method} ${path}`).toMatchObject({ status: 401, body: { success: false, error: "token_not_accepted" } });
      }
    }
    // Nothing above ended the session.
    expect((await browser.get("/api/auth/me")).status).toBe(200);
  });

  it("is no credential on /v1", async () => {
    const orgId = await server.newOrg();
    const browser = await server.signedIn(orgId, "owner");
    const cookie = (await browser.sessionCookie())!;
    const res = await withCookie(server.url, "/v1/memory/retrieve", session(cookie), { method: "POST", body: { query: "anything" } });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: "invalid_api_key", type: "authentication_error" });
  });

  it("answers garbage cookies with 401 not_signed_in, never a failure", async () => {
    const garbage = [
      "engram_session=",
      "engram_session=x",
      `engram_session=${"A".repeat(43)}`,
      `engram_session=${"A".repeat(42)}=`,
      `engram_session=${"A".repeat(44)}`,
      `engram_session=${"é".repeat(43)}`,
      "engram_session=%",
      "engram_session=%E0%A4%A",
      `engram_session="${"A".repeat(43)}"`,
      `engram_session=${"A".repeat(8000)}`,
      `engram_session=${"A".repeat(43)}; engram_session=${"B".repeat(43)}`,
      "engram_session",
      ";;;=;=",
      "other=1",
      "engram_session=../../etc/passwd",
      "engram_session=null",
    ];
    for (const cookie of garbage) {
      const res = await withCookie(server.url, "/api/auth/me", cookie);
      expect(res, cookie.slice(0, 60)).toMatchObject({ status: 401, body: notSignedIn });
    }
  });
});
