import type { TestProjectInlineConfiguration } from "vitest/config";

/**
 * The server suite runs twice: on an SQLite file, and on a real Postgres 15 that the global setup
 * starts from the local binaries. Shared by server/vitest.config.ts and the root config.
 */
function serverProject(database: "sqlite" | "postgres", root: string): TestProjectInlineConfiguration {
  return {
    resolve: { conditions: ["source"] },
    ssr: { resolve: { conditions: ["source"] } },
    test: {
      name: `server:${database}`,
      root,
      env: { ENGRAM_TEST_DATABASE: database },
      testTimeout: 30_000,
      hookTimeout: 60_000,
      globalSetup: ["test/support/temporary-root.ts", ...(database === "postgres" ? ["test/support/postgres-server.ts"] : [])],
      // The parity test compares both backends in one run, so it belongs to the run that has Postgres.
      ...(database === "sqlite" ? { exclude: ["test/backend-parity.test.ts", "**/node_modules/**"] } : {}),
    },
  };
}

export const serverProjects = (root: string) => [serverProject("sqlite", root), serverProject("postgres", root)];
