import { defineConfig } from "vitest/config";
import { serverProjects } from "./server/vitest.projects.ts";

// One run over the whole workspace, so `pnpm test` ends with a single summary line.
export default defineConfig({
  test: {
    projects: [
      { test: { name: "contract", root: "contract" } },
      { test: { name: "retrieval", root: "packages/retrieval" } },
      ...serverProjects("server"),
      {
        resolve: { conditions: ["source"] },
        ssr: { resolve: { conditions: ["source"] } },
        test: { name: "sdk", root: "sdk", env: { ENGRAM_TEST_DATABASE: "sqlite" } },
      },
    ],
    reporters: ["default", "./scripts/summary-reporter.ts"],
  },
});
