import { defineConfig } from "vitest/config";
import { serverProjects } from "./server/vitest.projects.ts";

// One run over the whole workspace, so `pnpm test` ends with a single summary line.
export default defineConfig({
  test: {
    projects: ["contract", "packages/retrieval", "sdk", ...serverProjects("server"), "packages/console"],
    reporters: ["default", new URL("./scripts/summary-reporter.ts", import.meta.url).pathname],
  },
});
