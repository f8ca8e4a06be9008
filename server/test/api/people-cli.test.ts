import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, SessionClient, startServerOn, temporaryDirectory } from "@engram/test-support";
import { applicationConfigFrom } from "../../src/application-config";
import { runCli } from "../../src/cli/run";
import { greetFirstRun } from "../../src/cli/serve";
import type { DatabaseConfig } from "../../src/db/config";
import type { RunningServer } from "../../src/server";

let database: DatabaseConfig;
let server: RunningServer;

const environments = new Map<DatabaseConfig, NodeJS.ProcessEnv>();

/** The environment a command line over `db` runs with (the administrator settings cleared). */
function envFor(db: DatabaseConfig): NodeJS.ProcessEnv {
  let env = environments.get(db);
  if (!env) {
    const dataDir = db.provider === "sqlite" ? dirname(db.file) : temporaryDirectory("engram-cli-");
    env = { ...process.env, ENGRAM_DATA_DIR: dataDir, DATABASE_URL: db.provider === "postgres" ? db.url : "", LOG_LEVEL: "warn", ENGRAM_ADMIN_EMAIL: "", ENGRAM_ADMIN_PASSWORD: "" };
    environments.set(db, env);
  }
  return env;
}

beforeAll(async () => {
  database = await freshDatabase();
  server = await startServerOn(database);
});
afterAll(() => server?.close());

/** One CLI command in this process, through the binary's entry function: what it printed, or a rejection with its exit status. */
async function engram(...args: string[]): Promise<string> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, { env: envFor(database), out: (line) => (stdout += `${line}\n`), err: (line) => (stderr += `${line}\n`) });
  if (code !== 0) throw Object.assign(new Error(`engram ${args.join(" ")} exited with ${code}: ${stderr}`), { code, stdout, stderr });
  return stdout;
}

const unique = () => randomUUID().slice(0, 8);
const newEmail = () => `cli-${unique()}@example.com`;
const newOrg = async () => (await engram("org", "create", "--name", `org-${unique()}`)).match(/organization (org_\w+)/)![1]!;

/** Creates an account through the command line and answers its generated password. */
async function createUser(email: string): Promise<string> {
  const printed = await engram("user", "create", "--email", email);
  const lines = printed.trim().split("\n");
  expect(lines.at(-2)).toBe("Its password is shown only this once:");
  return lines.at(-1)!;
}

async function signedIn(email: string, password: string): Promise<SessionClient> {
  const browser = new SessionClient(server.url);
  await browser.signIn(email, password);
  return browser;
}

describe("engram user", () => {
  it("create prints a generated password once, and it signs in over HTTP", async () => {
    const email = newEmail();
    const printed = await engram("user", "create", "--email", email, "--name", "Dana Scully");
    expect(printed).toMatch(new RegExp(`^created user usr_\\w+ \\(${email}, Dana Scully\\)\n`));
    const password = printed.trim().split("\n").at(-1)!;
    expect(password.length).toBeGreaterThanOrEqual(20);
    expect(printed.split(password)).toHaveLength(2);
    const me = await (await signedIn(email, password)).get("/api/auth/me");
    expect(me.body).toMatchObject({ user: { email, displayName: "Dana Scully" }, organizations: [] });
  });

  it("create with --password prints no password, and refuses a taken email or a short password", async () => {
    const email = newEmail();
    const printed = await engram("user", "create", "--email", email, "--password", "chosen passphrase");
    expect(printed).not.toContain("chosen passphrase");
    expect(printed).not.toContain("shown only this once");
    await signedIn(email, "chosen passphrase");
    await expect(engram("user", "create", "--email", email.toUpperCase())).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("already an account") });
    await expect(engram("user", "create", "--email", newEmail(), "--password", "short")).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("at least 10") });
    await expect(engram("user", "create", "--email", "not-an-email")).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("not an email address") });
  });

  it("password sets a new password and ends every open session", async () => {
    const email = newEmail();
    const password = await createUser(email);
    const browser = await signedIn(email, password);
    const other = await signedIn(email, password);

    const printed = await engram("user", "password", "--email", email);
    expect(printed).toContain("its sessions have ended");
    const newPassword = printed.trim().split("\n").at(-1)!;
    expect(newPassword).not.toBe(password);

    for (const client of [browser, other]) expect(await client.get("/api/auth/me")).toMatchObject({ status: 401, body: { error: "not_signed_in" } });
    const stale = await new SessionClient(server.url).post("/api/auth/login", { email, password });
    expect(stale.status).toBe(401);
    await signedIn(email, newPassword);

    await engram("user", "password", "--email", email, "--password", "another passphrase");
    await signedIn(email, "another passphrase");
    await expect(engram("user", "password", "--email", email, "--password", "short")).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("at least 10") });
    await expect(engram("user", "password", "--email", newEmail())).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("No account for") });
  });
});

describe("engram member", () => {
  it("add, role and remove change what the person's session sees", async () => {
    const orgId = await newOrg();
    const ownerEmail = newEmail();
    await createUser(ownerEmail);
    const email = newEmail();
    const password = await createUser(email);

    expect(await engram("member", "add", "--org", orgId, "--email", ownerEmail, "--role", "owner")).toContain(`${ownerEmail} is now owner of ${orgId}`);
    expect(await engram("member", "add", "--org", orgId, "--email", email, "--role", "member")).toContain(`${email} is now member of ${orgId}`);
    const browser = await signedIn(email, password);
    expect((await browser.get("/api/auth/me")).body.organizations).toEqual([expect.objectContaining({ id: orgId, role: "member" })]);

    expect(await engram("member", "role", "--org", orgId, "--email", email, "--role", "admin")).toContain(`${email} is now admin of ${orgId}`);
    expect((await browser.get("/api/auth/me")).body.organizations).toEqual([expect.objectContaining({ id: orgId, role: "admin" })]);
    const listed = await engram("member", "list", "--org", orgId);
    expect(listed).toContain(`\t${email}\t`);
    expect(listed).toMatch(new RegExp(`\\t${ownerEmail}\\t.*\\towner\\n`));

    const personal = await browser.post("/api/assistants", { name: "Mine", type: "employee_personal" });
    expect(personal.status).toBe(201);
    expect(await engram("member", "remove", "--org", orgId, "--email", email)).toContain(`removed ${email} from ${orgId}`);
    expect(await browser.get("/api/auth/me")).toMatchObject({ status: 200, body: { organizations: [], activeOrganizationId: null } });
    expect(await browser.get("/api/assistants")).toMatchObject({ status: 404, body: { error: "organization_not_found" } });
    expect(await engram("assistant", "list", "--org", orgId)).not.toContain(personal.body.assistant._id);
  });

  it("refuses to leave an organization without an owner (exit status 2, a clear message)", async () => {
    const orgId = await newOrg();
    const email = newEmail();
    await createUser(email);
    await engram("member", "add", "--org", orgId, "--email", email, "--role", "owner");
    for (const args of [
      ["member", "role", "--org", orgId, "--email", email, "--role", "admin"],
      ["member", "remove", "--org", orgId, "--email", email],
    ]) {
      await expect(engram(...args)).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/^engram: An organization needs an owner: make someone else owner first\.\n$/) });
    }
    expect(await engram("member", "list", "--org", orgId)).toMatch(new RegExp(`\\t${email}\\t.*\\towner\\n`));

    // With a second owner, the first may step down.
    const second = newEmail();
    await createUser(second);
    await engram("member", "add", "--org", orgId, "--email", second, "--role", "owner");
    expect(await engram("member", "role", "--org", orgId, "--email", email, "--role", "member")).toContain("is now member");
    await expect(engram("member", "remove", "--org", orgId, "--email", second)).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("needs an owner") });
  });

  it("refuses an unknown role, an unknown email, a missing option, an unknown organization and a second membership", async () => {
    const orgId = await newOrg();
    const email = newEmail();
    await createUser(email);
    const refusals: Array<[string[], RegExp]> = [
      [["member", "add", "--org", orgId, "--email", email, "--role", "boss"], /Unknown role "boss"; use owner, admin or member/],
      [["member", "add", "--org", orgId, "--email", "nobody-here@example.com", "--role", "member"], /No account for nobody-here@example\.com/],
      [["member", "role", "--org", orgId, "--email", "nobody-here@example.com", "--role", "admin"], /No account for/],
      [["member", "remove", "--org", orgId, "--email", "nobody-here@example.com"], /No account for/],
      [["member", "add", "--org", orgId, "--email", email], /--role is required/],
      [["member", "add", "--email", email, "--role", "member"], /--org is required/],
      [["member", "add", "--org", "org_missing", "--email", email, "--role", "member"], /No organization org_missing/],
      [["member", "role", "--org", orgId, "--email", email, "--role", "admin"], /No such member/],
      [["member", "remove", "--org", orgId, "--email", email], /No such member/],
    ];
    for (const [args, message] of refusals) {
      await expect(engram(...args), args.join(" ")).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(message) });
    }
    await engram("member", "add", "--org", orgId, "--email", email, "--role", "member");
    await expect(engram("member", "add", "--org", orgId, "--email", email, "--role", "admin")).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("already a member") });
    expect(await engram("member", "list", "--org", orgId)).toMatch(new RegExp(`\\t${email}\\t.*\\tmember\\n`));
  });
});

describe("assistants through the command line", () => {
  it("prints an assistant's whole change log, newest first, read a page at a time", async () => {
    const orgId = await newOrg();
    const assistantId = (await engram("assistant", "create", "--org", orgId, "--name", "Name 0", "--type", "org_shared")).match(/assistant (asst_\w+)/)![1]!;
    // More changes than a page of the log holds.
    for (let i = 1; i <= 24; i++) await engram("assistant", "rename", assistantId, "--org", orgId, "--name", `Name ${i}`);
    const lines = (await engram("assistant", "changes", assistantId, "--org", orgId)).trim().split("\n");
    expect(lines.map((line) => line.split("\t")[1])).toEqual(Array.from({ length: 25 }, (_, i) => `v${25 - i}`));
    expect(lines.at(-1)).toContain("\tcreated\tcli\t");
  });
});

describe("the first start", () => {
  /** greetFirstRun over a server of its own, on a database of its own; answers what it printed. */
  async function firstRunOn(db: DatabaseConfig, env: NodeJS.ProcessEnv = {}) {
    const running = await startServerOn(db);
    try {
      let printed = "";
      await greetFirstRun(running.services, running.url, (line) => (printed += `${line}\n`), applicationConfigFrom(env).admin);
      return { printed, users: await running.services.users.count(), orgs: await running.services.organizations.list() };
    } finally {
      await running.close();
    }
  }

  async function signInOn(db: DatabaseConfig, email: string, password: string) {
    const running = await startServerOn(db);
    try {
      const browser = new SessionClient(running.url);
      return (await browser.signIn(email, password)).body;
    } finally {
      await running.close();
    }
  }

  it("prints an owner's credentials once, which sign in as owner of Development; a second start makes no one else", async () => {
    const db = await freshDatabase();
    const first = await firstRunOn(db);
    expect(first.printed).toMatch(/^ {2}export ENGRAM_TOKEN=acm_\S+$/m);
    expect(first.printed).toMatch(/^ {2}export ENGRAM_ADMIN_EMAIL=admin@localhost$/m);
    const password = first.printed.match(/^ {2}export ENGRAM_ADMIN_PASSWORD=(\S+)$/m)?.[1];
    expect(password).toBeDefined();
    expect(first.users).toBe(1);

    const session = await signInOn(db, "admin@localhost", password!);
    expect(session.organizations).toEqual([expect.objectContaining({ name: "Development", role: "owner" })]);
    expect(session.activeOrganizationId).toBe(first.orgs[0]!.id);

    const second = await firstRunOn(db);
    expect(second.users).toBe(1);
    expect(second.orgs).toHaveLength(1);
    expect(second.printed).not.toContain("ENGRAM_ADMIN");
    expect(second.printed).not.toContain("ENGRAM_TOKEN");
  });

  it("uses ENGRAM_ADMIN_EMAIL and ENGRAM_ADMIN_PASSWORD when set, and does not print the password", async () => {
    const db = await freshDatabase();
    const env = { ENGRAM_ADMIN_EMAIL: "Boss@Example.com", ENGRAM_ADMIN_PASSWORD: "the boss passphrase" };
    const first = await firstRunOn(db, env);
    expect(first.printed).toMatch(/^ {2}export ENGRAM_ADMIN_EMAIL=boss@example\.com$/m);
    expect(first.printed).not.toContain("ENGRAM_ADMIN_PASSWORD=");
    expect(first.printed).not.toContain(env.ENGRAM_ADMIN_PASSWORD);
    const session = await signInOn(db, env.ENGRAM_ADMIN_EMAIL, env.ENGRAM_ADMIN_PASSWORD);
    expect(session.organizations).toEqual([expect.objectContaining({ name: "Development", role: "owner" })]);
    expect((await firstRunOn(db, env)).users).toBe(1);
  });

  it("refuses a malformed ENGRAM_ADMIN_EMAIL before making anything", async () => {
    const db = await freshDatabase();
    await expect(firstRunOn(db, { ENGRAM_ADMIN_EMAIL: "administrator" })).rejects.toThrow(/^ENGRAM_ADMIN_EMAIL: That is not an email address\.$/);
    const after = await firstRunOn(db);
    expect(after.printed).toContain("ENGRAM_TOKEN=");
    expect(after.orgs).toHaveLength(1);
  });

  it("gives a database with organizations but no people an owner of its first organization, and no new token", async () => {
    const db = await freshDatabase();
    const running = await startServerOn(db);
    const existing = await running.services.organizations.create({ name: "Acme" });
    await running.close();
    const first = await firstRunOn(db);
    expect(first.printed).not.toContain("ENGRAM_TOKEN");
    expect(first.orgs.map((o) => o.id)).toEqual([existing.id]);
    const password = first.printed.match(/ENGRAM_ADMIN_PASSWORD=(\S+)/)![1]!;
    expect((await signInOn(db, "admin@localhost", password)).organizations).toEqual([expect.objectContaining({ id: existing.id, role: "owner" })]);
  });

  describe("of the real binary", () => {
    const children: ChildProcess[] = [];
    afterAll(() => {
      for (const child of children) child.kill("SIGKILL");
    });

    /** `engram serve` as a child process; resolves once it printed `pattern`, when it exits, or after 15 s (exitCode null). */
    function serve(env: NodeJS.ProcessEnv, pattern: RegExp) {
      const entry = new URL("../../src/cli.ts", import.meta.url).pathname;
      const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", entry, "serve"], { env: { ...env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info" } });
      children.push(child);
      let stdout = "";
      let stderr = "";
      child.stdout!.on("data", (chunk) => (stdout += chunk));
      child.stderr!.on("data", (chunk) => (stderr += chunk));
      return new Promise<{ stdout: string; stderr: string; exitCode: number | null; child: ChildProcess }>((resolve) => {
        const seen = () => {
          if (pattern.test(stdout)) resolve({ stdout, stderr, exitCode: null, child });
        };
        child.stdout!.on("data", seen);
        child.once("exit", (code) => resolve({ stdout, stderr, exitCode: code, child }));
        setTimeout(() => resolve({ stdout, stderr, exitCode: null, child }), 15_000).unref();
      });
    }

    it("reads the administrator from the environment", async () => {
      const db = await freshDatabase();
      const env = { ...envFor(db), ENGRAM_ADMIN_EMAIL: "ops@example.com", ENGRAM_ADMIN_PASSWORD: "ops team passphrase" };
      const started = await serve(env, /ENGRAM_ADMIN_EMAIL=\S+\n[\s\S]*Try: curl -s -c/);
      try {
        expect(started.exitCode).toBeNull();
        expect(started.stdout).toMatch(/^ {2}export ENGRAM_ADMIN_EMAIL=ops@example\.com$/m);
        expect(started.stdout).not.toContain("ops team passphrase");
        const url = started.stdout.match(/"url":"([^"]+)"/)![1]!;
        const session = await new SessionClient(url).signIn("ops@example.com", "ops team passphrase");
        expect(session.body.organizations).toEqual([expect.objectContaining({ name: "Development", role: "owner" })]);
      } finally {
        const exited = new Promise((resolve) => started.child.once("exit", resolve));
        started.child.kill("SIGTERM");
        await exited;
      }
    });

    it("stops before making anything when ENGRAM_ADMIN_PASSWORD is too short, so the next start is still a first run", async () => {
      const db = await freshDatabase();
      const env = { ...envFor(db), ENGRAM_ADMIN_PASSWORD: "short" };
      const failed = await serve(env, /ENGRAM_TOKEN=/);
      expect(failed.exitCode).toBe(2);
      expect(failed.stderr).toMatch(/ENGRAM_ADMIN_PASSWORD.*at least 10/);
      expect(failed.stdout).not.toContain("listening");
      const running = await startServerOn(db);
      try {
        expect(await running.services.organizations.list()).toEqual([]);
        expect(await running.services.users.count()).toBe(0);
      } finally {
        await running.close();
      }
    });
  });
});
