import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * `pnpm --filter @engram/console bench`: the page-data benchmark, run by vitest so it shares the browser tests'
 * harness (the console built once with its budget check, a real server on SQLite, Chromium). Not part of `pnpm test`.
 */
export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "console:bench",
    include: ["bench/page-data.ts"],
    environment: "node",
    env: { ENGRAM_TEST_DATABASE: "sqlite" },
    globalSetup: ["../test-support/src/global-setup/temporary-root.ts", "test/browser/support/build-console.ts"],
    testTimeout: 900_000,
    hookTimeout: 300_000,
  },
});
