import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@engram/test-support";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../..");
const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin/tsc");

let server: TestServer;
let project: string;
let packed: string;
let tarball: string;
let token: string;

/** Runs a command without blocking this process, which also serves the test server the command talks to. */
async function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  try {
    return (await promisify(execFile)(command, args, { cwd, env: { ...process.env, ...env }, encoding: "utf8" })).stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed:\n${stdout ?? ""}${stderr ?? ""}`);
  }
}

// What `pnpm --filter @engram/sdk pack` makes, installed with npm into a project that has never seen the
// monorepo: no workspace links, no source condition, only the registry for its dependencies.
beforeAll(async () => {
  server = await startTestServer();
  token = (await server.newTenant()).token;
  packed = mkdtempSync(join(tmpdir(), "engram-sdk-pack-"));
  await run("npx", ["--yes", "pnpm@10", "--filter", "@engram/sdk", "pack", "--pack-destination", packed], repoRoot);
  tarball = join(packed, readdirSync(packed).find((name) => name.endsWith(".tgz"))!);
  project = mkdtempSync(join(tmpdir(), "engram-sdk-consumer-"));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true }));
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], project);
}, 240_000);
afterAll(async () => {
  await server?.stop();
  for (const dir of [packed, project]) if (dir) rmSync(dir, { recursive: true, force: true });
});

const installed = (path: string) => join(project, "node_modules/@engram/sdk", path);

describe("the packed SDK in a fresh project", () => {
  it("ships only the build, with an exports map for import and require", async () => {
    const listing = (await run("tar", ["-tzf", tarball], project)).trim().split("\n").sort();
    expect(listing).toEqual(["package/dist/index.cjs", "package/dist/index.d.cts", "package/dist/index.d.ts", "package/dist/index.js", "package/package.json", "package/README.md"].sort());
    const manifest = JSON.parse(readFileSync(installed("package.json"), "utf8"));
    expect(manifest.exports["."]).toEqual({
      import: { types: "./dist/index.d.ts", default: "./dist/index.js" },
      require: { types: "./dist/index.d.cts", default: "./dist/index.cjs" },
    });
    expect(Object.keys(manifest.dependencies).sort()).toEqual(["@ts-rest/core", "eventsource-parser", "zod"]);
  });

  it("bundles the contract but no server code, Prisma or workspace imports", () => {
    for (const file of ["dist/index.js", "dist/index.cjs", "dist/index.d.ts"]) {
      const code = readFileSync(installed(file), "utf8");
      expect(code).not.toMatch(/prisma|express|better-sqlite3|pino|@engram\//i);
    }
    expect(readFileSync(installed("dist/index.js"), "utf8")).toContain("/agents/:agentSlug/recall");
  });

  it("works through import", async () => {
    const script = `
      import { Engram, NotFoundError } from "@engram/sdk";
      const engram = new Engram({ baseUrl: process.env.BASE_URL });
      const memory = await engram.memory.remember({ text: "Packed SDKs work from ESM." });
      const { memories } = await engram.memory.recall({ query: "packed ESM" });
      const missing = await engram.memory.provenance("mem_missing").catch((e) => e instanceof NotFoundError);
      console.log(JSON.stringify({ found: memories[0]?.id === memory.id, missing }));`;
    writeFileSync(join(project, "esm.mjs"), script);
    expect(JSON.parse(await run("node", ["esm.mjs"], project, { BASE_URL: server.url, ENGRAM_TOKEN: token }))).toEqual({ found: true, missing: true });
  });

  it("works through require", async () => {
    const script = `
      const { Engram, AuthenticationError } = require("@engram/sdk");
      const engram = new Engram({ baseUrl: process.env.BASE_URL });
      (async () => {
        const memory = await engram.memory.remember({ text: "Packed SDKs work from CommonJS." });
        const { data, response } = await engram.memory.recall({ query: "packed CommonJS" }).withResponse();
        const denied = await new Engram({ baseUrl: process.env.BASE_URL, token: "acm_nope" }).memory.recall({ query: "x" }).catch((e) => e instanceof AuthenticationError);
        console.log(JSON.stringify({ found: data.memories[0].id === memory.id, status: response.status, denied }));
      })();`;
    writeFileSync(join(project, "cjs.cjs"), script);
    expect(JSON.parse(await run("node", ["cjs.cjs"], project, { BASE_URL: server.url, ENGRAM_TOKEN: token }))).toEqual({ found: true, status: 200, denied: true });
  });

  it("type-checks in ESM and CommonJS consumers", async () => {
    const usage = `
      const engram = new Engram({ token: "acm_x" });
      async function typed() {
        const memory = await engram.memory.remember({ text: "x", memoryKind: "decision" });
        const state: "candidate" | "durable" | "suppressed" | "tombstoned" = memory.state;
        const { response } = await engram.memory.recall({ query: "x" }).withResponse();
        const remaining: number | undefined = response.rateLimit?.remaining;
        // @ts-expect-error the contract has no such memory kind
        await engram.memory.remember({ text: "x", memoryKind: "rumour" });
        return [state, remaining];
      }
      export { typed };`;
    // The same import resolves through "import" in a .mts file and through "require" in a .cts file.
    writeFileSync(join(project, "check.mts"), `import { Engram } from "@engram/sdk";\n${usage}`);
    writeFileSync(join(project, "check.cts"), `import { Engram } from "@engram/sdk";\n${usage}`);
    const compilerOptions = { noEmit: true, strict: true, module: "nodenext", moduleResolution: "nodenext", lib: ["es2023", "dom"], types: [], skipLibCheck: false };
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["check.mts", "check.cts"] }));
    await run("node", [tsc, "-p", "tsconfig.json"], project);
  });
});
