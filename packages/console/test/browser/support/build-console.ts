import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The console built for this run, served by every test's server. */
    consoleDir: string;
  }
}

/**
 * Vitest global setup: build the console once per run, as `pnpm start` does (the budget check included), into a
 * folder of the run's own, so a run never serves half of another run's build.
 */
export default function setup(project: TestProject): () => void {
  const root = fileURLToPath(new URL("../../..", import.meta.url));
  const outDir = mkdtempSync(join(tmpdir(), "engram-console-"));
  execFileSync(process.execPath, ["node_modules/vite/bin/vite.js", "build", "--logLevel", "warn", "--outDir", outDir, "--emptyOutDir"], {
    cwd: root,
    stdio: "inherit",
    // Vitest sets NODE_ENV=test, which would make React's development build.
    env: { ...process.env, NODE_ENV: "production" },
  });
  execFileSync(process.execPath, ["scripts/check-budget.mjs", outDir], { cwd: root, stdio: "inherit" });
  project.provide("consoleDir", outDir);
  return () => rmSync(outDir, { recursive: true, force: true });
}
