import { defineConfig } from "vitest/config";

// The SDK's tests run against the real server (on SQLite), importing workspace packages from source.
export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "sdk",
    env: { ENGRAM_TEST_DATABASE: "sqlite" },
    testTimeout: 30_000,
    hookTimeout: 240_000,
    // The test servers keep their temporary files in this run's folder, removed when the run ends.
    globalSetup: ["../packages/test-support/src/global-setup/temporary-root.ts"],
  },
});
