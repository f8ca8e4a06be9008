import { defineProject } from "vitest/config";

/**
 * The console in a real browser: Debian's Chromium driven by playwright-core against a real server on SQLite,
 * which serves the console built by the global setup (the same build `pnpm start` makes, budget check included).
 */
export default defineProject({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "console:browser",
    include: ["test/browser/**/*.browser.test.ts"],
    environment: "node",
    env: { ENGRAM_TEST_DATABASE: "sqlite" },
    globalSetup: ["../test-support/src/global-setup/temporary-root.ts", "test/browser/support/build-console.ts"],
    testTimeout: 90_000,
    hookTimeout: 120_000,
  },
});
