import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, startServerOn, temporaryDirectory } from "@engram/test-support";
import { runCli } from "../src/cli/run";
import type { DatabaseConfig } from "../src/db/config";

/** The binary's entry, for the commands that need a process of their own. */
const entry = new URL("../src/cli.ts", import.meta.url).pathname;

let database: DatabaseConfig;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  database = await freshDatabase();
  const dataDir = database.provider === "sqlite" ? dirname(database.file) : temporaryDirectory("engram-cli-");
  env = { ...process.env, ENGRAM_DATA_DIR: dataDir, DATABASE_URL: database.provider === "postgres" ? database.url : "", LOG_LEVEL: "warn" };
});

/**
 * One CLI command run in this process, through the same entry function the binary calls: resolves to what it
 * printed, or rejects with its exit status and diagnostics, like a failed child process would.
 */
async function engram(...args: string[]): Promise<string> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, { env, out: (line) => (stdout += `${line}\n`), err: (line) => (stderr += `${line}\n`) });
  if (code !== 0) throw Object.assign(new Error(`engram ${args.join(" ")} exited with ${code}: ${stderr}`), { code, stdout, stderr });
  return stdout;
}

/** Everything a child process prints, and a wait for some of it that fails as soon as the process ends. */
function watchOutput(child: ChildProcess) {
  let output = "";
  let closed = false;
  const waiters = new Set<() => void>();
  child.stdout!.on("data", (chunk) => {
    output += chunk;
    for (const check of waiters) check();
  });
  child.once("close", () => {
    closed = true;
    for (const check of waiters) check();
  });
  return {
    printed: (pattern: RegExp) =>
      new Promise<string>((resolve, reject) => {
        const check = () => {
          if (pattern.test(output)) resolve(output);
          else if (closed) reject(new Error(`engram ended before printing ${pattern}:\n${output}`));
          else return;
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
  };
}

describe("engram CLI", () => {
  let serveProcess: ChildProcess | undefined;
  afterAll(() => serveProcess?.kill("SIGKILL"));

  // The one command that needs a real process: the binary's entry, a listening server, and signal handling.
  it("serve creates a development organization and token on first run, answers with it, and stops on SIGTERM", async () => {
    serveProcess = spawn(process.execPath, ["--conditions=source", "--import", "tsx", entry, "serve"], {
      env: { ...env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ENGRAM_CONSOLE_DIR: "off" },
    });
    const watched = watchOutput(serveProcess);
    const output = await watched.printed(/ENGRAM_TOKEN=acm_\S+\n/);

    const token = output.match(/ENGRAM_TOKEN=(acm_\S+)/)?.[1];
    const url = output.match(/"url":"([^"]+)"/)?.[1];
    expect(token).toBeDefined();
    const res = await fetch(`${url}/v1/memory`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ text: "Created through the first-run token." }),
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { memory: { environment: string } }).memory.environment).toBe("production");

    const exited = new Promise<number | null>((resolve) => serveProcess!.once("exit", resolve));
    serveProcess.kill("SIGTERM");
    expect(await exited).toBe(0);
    const printed = await watched.printed(/"msg":"shutting down"/);
    // The console turned off on purpose is not asked for.
    expect(printed).not.toMatch(/console|build it/);
  });

  /** `engram token create` for a new organization, its output going to `stdout`; resolves to its status and stderr. */
  async function createTokenWritingTo(stdout: "pipe" | number, closeBeforeFirstLine: boolean) {
    const orgId = (await engram("org", "create", "--name", "Output")).match(/organization (org_\w+)/)![1]!;
    const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", entry, "token", "create", "--org", orgId, "--name", "written"], {
      env,
      stdio: ["ignore", stdout, "pipe"],
    });
    if (closeBeforeFirstLine) child.stdout!.destroy();
    let stderr = "";
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    const status = await new Promise<number | null>((resolve) => child.once("close", resolve));
    return { status, stderr, orgId };
  }

  it("stops quietly when the reader of its output has gone (`| head -1`), with the closed pipe's status 141", async () => {
    const { status, stderr, orgId } = await createTokenWritingTo("pipe", true);
    expect({ status, stderr }).toEqual({ status: 141, stderr: "" });
    // Made all the same, its secret unseen: the status is how a script learns that.
    expect(await engram("token", "list", "--org", orgId)).toContain("\twritten\t");
  }, 30_000);

  it.runIf(existsSync("/dev/full"))("says in one line, with status 1, that its output could not be written (a full disk)", async () => {
    const full = openSync("/dev/full", "w");
    try {
      const { status, stderr } = await createTokenWritingTo(full, false);
      expect({ status, stderr }).toEqual({ status: 1, stderr: "engram: cannot write the output: ENOSPC: no space left on device, write\n" });
    } finally {
      closeSync(full);
    }
  }, 30_000);

  it.runIf(existsSync("/dev/full"))("keeps its status when the error line itself cannot be written", async () => {
    const full = openSync("/dev/full", "w");
    try {
      for (const [args, expected] of [
        [["no-such-command"], 2],
        [["token", "create", "--org", "org_missing", "--name", "x"], 2],
      ] as const) {
        const child = spawnSync(process.execPath, ["--conditions=source", "--import", "tsx", entry, ...args], { env, stdio: ["ignore", "ignore", full] });
        expect({ args, status: child.status, signal: child.signal }).toEqual({ args, status: expected, signal: null });
      }
    } finally {
      closeSync(full);
    }
  }, 30_000);

  it("migrate reports an up-to-date database", async () => {
    expect(await engram("migrate")).toMatch(/up to date|applied/);
    expect(await engram("migrate")).toContain("database is up to date");
  });

  it("creates organizations and scoped, environment-bound tokens, lists and revokes them", async () => {
    const created = await engram("org", "create", "--name", "Acme", "--plan", "seed");
    const orgId = created.match(/organization (org_\w+)/)?.[1];
    expect(orgId).toBeDefined();
    expect(await engram("org", "list")).toMatch(new RegExp(`${orgId}\\tAcme\\tplan=seed`));

    const tokenOut = await engram("token", "create", "--org", orgId!, "--name", "ci", "--scopes", "memory:read,memory:write", "--environment", "staging", "--agents", "triage");
    const token = tokenOut.match(/^(acm_\S+)$/m)?.[1];
    const tokenId = tokenOut.match(/created token (tok_\w+)/)?.[1];
    expect(token).toHaveLength(47);
    expect(tokenOut).toContain("staging; memory:read memory:write; agents triage");

    const listed = await engram("token", "list", "--org", orgId!);
    expect(listed).toContain(`${tokenId}\t${token!.slice(0, 12)}…\tci\tstaging\tmemory:read memory:write\tactive\tagents=triage`);
    expect(listed).not.toContain(token!);

    expect(await engram("token", "revoke", tokenId!)).toContain(`revoked ${tokenId}`);
    expect(await engram("token", "list", "--org", orgId!)).toMatch(/\trevoked /);
  });

  it("switches write mode, reviews candidates and reports events and workflows", async () => {
    const orgId = (await engram("org", "create", "--name", "Review", "--plan", "spark")).match(/organization (org_\w+)/)![1]!;
    expect(await engram("org", "write-mode", orgId, "candidate")).toContain(`organization ${orgId} now uses candidate write mode`);
    const token = (await engram("token", "create", "--org", orgId, "--name", "writer", "--environment", "staging")).match(/^(acm_\S+)$/m)![1]!;

    const server = await startServerOn(database);
    let memoryId = "";
    try {
      const post = (path: string, body: object) =>
        fetch(server.url + path, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<{ memory: { id: string } }>);
      memoryId = (await post("/v1/memory", { text: "Staging data resets every Sunday." })).memory.id;
      await post("/v1/memory/events", { type: "deploy.completed", text: "api v2 deployed", subject: "api", metadata: { version: "v2", environment: "eu" } });
      await post("/v1/memory/events", { type: "vendor.ping", text: "unknown kind of event" });
    } finally {
      await server.close();
    }

    const listed = await engram("candidate", "list", "--org", orgId);
    expect(listed).toContain(`${memoryId}\tstaging\tfact\t0.8\t-\tStaging data resets every Sunday.`);
    expect(listed.trim().split("\n")).toHaveLength(2);
    expect(await engram("candidate", "promote", memoryId, "--reason", "checked", "--actor", "admin:dana")).toContain(`promoted ${memoryId}: now durable`);
    expect(await engram("candidate", "list", "--org", orgId, "--environment", "production")).toContain("no candidates awaiting review");
    await expect(engram("candidate", "reject", memoryId)).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("Only candidates") });

    expect(await engram("events", "stats", "--org", orgId)).toBe("staging\tdeploy.completed\tknown\t1\nstaging\tvendor.ping\tunknown type\t1\n");
    expect(await engram("workflows", "list", "--org", orgId, "--environment", "staging")).toMatch(/^deployment\tapi@eu\tdeployed\t\{"version":"v2"\}\t/);
    await expect(engram("org", "write-mode", (await engram("org", "create", "--name", "Free")).match(/(org_\w+)/)![1]!, "candidate")).rejects.toMatchObject({
      stderr: expect.stringContaining("paid plan"),
    });
  });

  const listings = [
    ["token", "list"],
    ["member", "list"],
    ["assistant", "list"],
    ["candidate", "list"],
    ["events", "stats"],
    ["workflows", "list"],
  ];

  it.each(listings)("%s %s lists an empty organization as nothing, and refuses one that does not exist", async (...command) => {
    const orgId = (await engram("org", "create", "--name", "Empty", "--no-environments")).match(/organization (org_\w+)/)![1]!;
    const empty = await engram(...command, "--org", orgId);
    // Candidates say there are none; the other lists print no line at all.
    expect(empty).toBe(command[0] === "candidate" ? "no candidates awaiting review\n" : "");
    await expect(engram(...command, "--org", "org_missing")).rejects.toMatchObject({ code: 2, stderr: "engram: No organization org_missing.\n" });
  });

  it("quotes a value back in one line without its terminal controls", async () => {
    await expect(engram("token", "list", "--org", "\u001b[31mred\nline")).rejects.toMatchObject({ code: 2, stderr: "engram: No organization \\x1b[31mred line.\n" });
  });

  it("explains bad input and exits with status 2", async () => {
    await expect(engram("token", "create", "--org", "org_x", "--name", "n", "--environment", "qa")).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--environment must be test, staging or production"),
    });
    await expect(engram("token", "create", "--org", "org_missing", "--name", "n")).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("No organization org_missing"),
    });
    await expect(engram("token", "create", "--org", "org_x", "--name", "n", "--scopes", "memory:everything")).rejects.toMatchObject({
      stderr: expect.stringContaining('Unknown scope "memory:everything"'),
    });
    await expect(engram("frobnicate")).rejects.toMatchObject({ code: 2 });
    await expect(engram("org", "list", "--colour")).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("--colour") });
  });

  /** What `engram …args` reports, run with `settings` over the test's own: it must fail. */
  async function failureWith(settings: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; stderr: string }> {
    const saved = env;
    env = { ...env, ...settings };
    try {
      return await engram(...args).then(
        () => expect.unreachable(`engram ${args.join(" ")} succeeded`),
        (error: { code: number; stderr: string }) => error,
      );
    } finally {
      env = saved;
    }
  }

  it.each([
    [{ PORT: "http" }, [], 'PORT must be a whole number from 0 to 65535, got "http"'],
    [{ ENGRAM_WORKERS: "0" }, [], 'ENGRAM_WORKERS must be a whole number from 1 to 64, got "0"'],
    [{}, ["--workers", "lots"], '--workers must be a whole number from 1 to 64, got "lots"'],
    // The argument parser's refusals, told as the CLI tells the rest (its own messages span lines, or quote oddly).
    [{}, ["--workers", "-1"], '--workers needs a value: one that starts with "-" is written --workers=-…'],
    [{}, ["--workers"], "--workers needs a value"],
    [{}, ["--bogus"], "unknown option --bogus (`engram --help` lists the commands and their options)"],
    [{}, ["-x"], "unknown option -x (`engram --help`"],
    [{}, ["--help=yes"], "--help takes no value"],
    [{ LOG_LEVEL: "loud" }, [], 'LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "loud"'],
    [{ ENGRAM_RATE_LIMITS: "free.chat=5" }, [], 'ENGRAM_RATE_LIMITS: cannot read "free.chat=5"'],
    [{ ENGRAM_UPSTREAM_BASE_URL: "ftp://models.example" }, [], 'ENGRAM_UPSTREAM_BASE_URL must be an http(s) URL, got "ftp://models.example"'],
  ])("refuses to serve with a setting it cannot read (%o %o), in one line with status 2", async (settings, options, told) => {
    const failure = await failureWith(settings, "serve", ...options);
    expect(failure.code).toBe(2);
    expect(failure.stderr).toMatch(/^engram: [^\n]*\n$/);
    expect(failure.stderr).toContain(told);
  });

  it("says in one line, with status 1, which Postgres it cannot reach and why, never the password", async () => {
    // Nothing listens on port 1 of this machine.
    expect(await failureWith({ DATABASE_URL: "postgres://engram:s3cret@127.0.0.1:1/engram" }, "org", "list")).toMatchObject({
      code: 1,
      stderr: "engram: cannot open the database at postgres://engram@127.0.0.1:1/engram: connect ECONNREFUSED 127.0.0.1:1\n",
    });
  });

  it.each([
    ["postgres://127.0.0.1:1/engram?password=s3cret", "postgres://127.0.0.1:1/engram?password=redacted: connect ECONNREFUSED 127.0.0.1:1"],
    ["postgres://engram:p#s3cret@127.0.0.1:1/engram", "(not a URL): Invalid URL"],
  ])("never shows a password, however the URL holds it (%s)", async (url, told) => {
    expect(await failureWith({ DATABASE_URL: url }, "migrate")).toMatchObject({ code: 1, stderr: `engram: cannot open the database at ${told}\n` });
  });

  it("gives up on a Postgres that takes the connection but never answers, and says so in one line", async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      expect(await failureWith({ DATABASE_URL: `postgres://engram@127.0.0.1:${port}/engram` }, "migrate")).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(new RegExp(`^engram: cannot open the database at postgres://engram@127\\.0\\.0\\.1:${port}/engram: [^\\n]*timeout[^\\n]*\\n$`)),
      });
    } finally {
      silent.close();
    }
  }, 30_000);

  // In a process of its own: Node's recursive mkdir, which the server used, never returns there.
  it.runIf(process.platform === "linux")("says in one line, with status 1, that a data directory cannot be made (under /proc)", () => {
    const child = spawnSync(process.execPath, ["--conditions=source", "--import", "tsx", entry, "migrate"], {
      env: { ...env, DATABASE_URL: "", ENGRAM_DATA_DIR: "/proc/engram-test/data" },
      encoding: "utf8",
      timeout: 25_000,
    });
    expect({ status: child.status, stderr: child.stderr }).toEqual({
      status: 1,
      stderr: expect.stringMatching(/^engram: cannot open the database at \/proc\/engram-test\/data\/engram\.db: ENOENT[^\n]*\n$/),
    });
  }, 30_000);

  it("says that a data directory's path is too long for SQLite, and leaves none of the directories it made", async () => {
    const parent = temporaryDirectory("engram-cli-");
    const dataDir = join(parent, "a".repeat(200), "b".repeat(200), "c".repeat(200));
    const file = join(dataDir, "engram.db");
    expect(await failureWith({ DATABASE_URL: "", ENGRAM_DATA_DIR: dataDir }, "org", "list")).toMatchObject({
      code: 1,
      stderr: `engram: cannot open the database at ${file}: unable to open database file: its path is ${file.length} bytes long, and SQLite opens paths of at most 504\n`,
    });
    expect(existsSync(join(parent, "a".repeat(200)))).toBe(false);
    expect(existsSync(parent)).toBe(true);
  });

  it("says in one line, with status 1, that the SQLite file is not a database", async () => {
    const dataDir = temporaryDirectory("engram-cli-");
    writeFileSync(join(dataDir, "engram.db"), "Not a database, though named like one.\n");
    expect(await failureWith({ DATABASE_URL: "", ENGRAM_DATA_DIR: dataDir }, "org", "list")).toMatchObject({
      code: 1,
      stderr: `engram: cannot open the database at ${join(dataDir, "engram.db")}: file is not a database\n`,
    });
  });
});
