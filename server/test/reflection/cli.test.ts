import { dirname } from "node:path";
import { ZReflectionProcess } from "@engram/contract";
import { rawRequest, startTestServer, temporaryDirectory, type TestServer } from "@engram/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run";
import { reflectionProcesses } from "../../src/domain/reflection/processes";
import { reflectionRunner } from "../../src/domain/reflection/runner";

/** `engram reflection run|status` in this process, through the entry function the binary calls, over a real database. */
describe("engram reflection", () => {
  let server: TestServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    server = await startTestServer();
    const { database } = server;
    const dataDir = database.provider === "sqlite" ? dirname(database.file) : temporaryDirectory("engram-cli-");
    env = { ...process.env, ENGRAM_DATA_DIR: dataDir, DATABASE_URL: database.provider === "postgres" ? database.url : "", LOG_LEVEL: "warn" };
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function engram(...args: string[]): Promise<string> {
    let stdout = "";
    let stderr = "";
    const code = await runCli(args, { env, out: (line) => (stdout += `${line}\n`), err: (line) => (stderr += `${line}\n`) });
    if (code !== 0) throw Object.assign(new Error(`engram ${args.join(" ")} exited with ${code}: ${stderr}`), { code, stdout, stderr });
    return stdout;
  }

  async function organizationWithDuplicates(): Promise<string> {
    const { orgId, token } = await server.newTenant();
    for (let i = 0; i < 2; i++) {
      const res = await rawRequest(server.url, "/v1/memory", { token, body: JSON.stringify({ text: "Releases are frozen on Fridays after 15:00.", subject: "releases" }) });
      expect(res.status).toBe(201);
    }
    return orgId;
  }

  it("runs every process to the end and prints the audit; status lists it", async () => {
    // The CLI runs the server's processes: all of them.
    expect(reflectionProcesses.map((process) => process.name).sort()).toEqual([...ZReflectionProcess.options].sort());
    const orgId = await organizationWithDuplicates();
    expect(await engram("reflection", "status", "--org", orgId)).toBe(`${orgId} production: no run in progress\nno runs yet\n`);

    const lines = (await engram("reflection", "run", "--org", orgId)).trimEnd().split("\n");
    const runId = lines[0]!.match(new RegExp(`^reflection run (rfr_\\w+) over ${orgId} production: completed in \\d+\\.\\d s$`))?.[1];
    expect(runId, lines[0]).toBeDefined();
    expect(lines.slice(1).map((line) => line.split("\t")[0])).toEqual(reflectionProcesses.map((process) => process.name));
    for (const line of lines.slice(1)) expect(line).toMatch(/^\w+\texamined \d+\tactions \d+$/);
    // The two copies are one memory now.
    expect(lines).toContainEqual(expect.stringMatching(/^duplicates\texamined 2\tactions [1-9]\d*$/));
    const run = await server.db.reflectionRun.findUniqueOrThrow({ where: { id: runId! } });
    expect(run).toMatchObject({ orgId, environment: "production", trigger: "cli", triggeredBy: "cli", status: "completed" });

    const status = (await engram("reflection", "status", "--org", orgId)).trimEnd().split("\n");
    expect(status[0]).toBe(`${orgId} production: no run in progress`);
    expect(status[1]).toMatch(new RegExp(`^${runId}\\tcompleted\\tcli by cli\\t\\S+Z\\t\\S+Z\\t(\\w+ \\d+/\\d+)(, \\w+ \\d+/\\d+)*$`));
    expect(status).toHaveLength(2);
  });

  it("keeps environments apart and shows processes the organization turned off", async () => {
    const orgId = await organizationWithDuplicates();
    expect(await server.services.store.reflectionSettings.save(orgId, { processes: { duplicates: { enabled: false } } }, 0, new Date(), "test")).toBe(true);
    const staging = (await engram("reflection", "run", "--org", orgId, "--environment", "staging")).split("\n");
    expect(staging[0]).toMatch(new RegExp(`over ${orgId} staging: completed`));
    expect(staging).toContain("duplicates\toff");
    // Nothing in staging: production's copies are untouched.
    for (const line of staging.slice(1).filter((line) => line.includes("examined"))) expect(line).toMatch(/\texamined 0\tactions 0$/);
    expect(await server.db.memory.count({ where: { orgId, state: "durable" } })).toBe(2);
    expect(await engram("reflection", "status", "--org", orgId)).toBe(`${orgId} production: no run in progress\nno runs yet\n`);
  });

  it("answers 2 with the reason while a run is in progress, and status says so", async () => {
    const orgId = await organizationWithDuplicates();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const runner = reflectionRunner(server.services.store, {
      clock: () => new Date(),
      processes: [{ name: "duplicates", run: async () => (await held, { examined: 0, actions: 0 }) }],
    });
    const running = await runner.start({ orgId, environment: "production" }, "person", "usr_1");
    try {
      await expect(engram("reflection", "run", "--org", orgId)).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("already in progress") });
      const status = await engram("reflection", "status", "--org", orgId);
      expect(status).toMatch(new RegExp(`^${orgId} production: run ${running.id} in progress since \\S+Z \\(person\\)\n`));
      expect(status).toContain(`${running.id}\trunning\tperson by usr_1\t`);
    } finally {
      release();
      await runner.idle();
    }
  });

  it("explains bad input with status 2", async () => {
    await expect(engram("reflection", "run")).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("--org is required") });
    await expect(engram("reflection", "status", "--org", "org_missing")).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("No organization org_missing") });
    const orgId = await server.newOrg();
    await expect(engram("reflection", "run", "--org", orgId, "--environment", "qa")).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--environment must be test, staging or production"),
    });
    await expect(engram("reflection", "frobnicate", "--org", orgId)).rejects.toMatchObject({ code: 2 });
    expect(await engram("--help")).toContain("engram reflection run --org ORG_ID [--environment ENV]");
  });
});
