import { defineConfig } from "vitest/config";

// The whole suite runs twice: once on an SQLite file, once on a real Postgres 15 that the global setup
// starts from the local binaries.
export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: "sqlite", env: { ENGRAM_TEST_DATABASE: "sqlite" } } },
      {
        extends: true,
        test: { name: "postgres", env: { ENGRAM_TEST_DATABASE: "postgres" }, globalSetup: ["test/support/postgres-server.ts"] },
      },
    ],
  },
});
