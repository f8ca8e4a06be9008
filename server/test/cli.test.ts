import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, startServerOn } from "./support/harness";

const run = promisify(execFile);
const cliArgs = ["--conditions=source", "--import", "tsx", new URL("../src/cli.ts", import.meta.url).pathname];
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const database = await freshDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), "engram-cli-"));
  env = { ...process.env, ENGRAM_DATA_DIR: dataDir, DATABASE_URL: database.provider === "postgres" ? database.url : "", LOG_LEVEL: "warn" };
});

const engram = async (...args: string[]) => (await run(process.execPath, [...cliArgs, ...args], { env })).stdout;

describe("engram CLI", () => {
  let serveProcess: ChildProcess | undefined;
  afterAll(() => serveProcess?.kill("SIGKILL"));

  it("serve creates a development organization and token on first run, answers with it, and stops on SIGTERM", async () => {
    serveProcess = spawn(process.execPath, [...cliArgs, "serve"], { env: { ...env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info" } });
    let output = "";
    serveProcess.stdout!.on("data", (chunk) => (output += chunk));
    const deadline = Date.now() + 20_000;
    while (!/ENGRAM_TOKEN=acm_/.test(output) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));

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
    expect(output).toMatch(/"msg":"shutting down"/);
  });

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

    const database = env.DATABASE_URL ? { provider: "postgres" as const, url: env.DATABASE_URL } : { provider: "sqlite" as const, file: join(env.ENGRAM_DATA_DIR!, "engram.db") };
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
});
