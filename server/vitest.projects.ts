import type { TestProjectInlineConfiguration } from "vitest/config";

/**
 * The server suite runs twice: on an SQLite file, and on a real Postgres 15 that the global setup
 * starts from the local binaries. Shared by server/vitest.config.ts and the root config.
 */
// Relative to the project root (server/); vitest resolves global setups by path, not through package exports.
const GLOBAL_SETUP = "../packages/test-support/src/global-setup";

function serverProject(database: "sqlite" | "postgres", root: string): TestProjectInlineConfiguration {
  return {
    resolve: { conditions: ["source"] },
    ssr: { resolve: { conditions: ["source"] } },
    test: {
      name: `server:${database}`,
      root,
      env: { ENGRAM_TEST_DATABASE: database },
      // Node loads dependencies with the `source` condition too, under which eventsource-parser is TypeScript:
      // the MCP SDK's HTTP client, which imports it, is loaded through Vite instead.
      server: { deps: { inline: [/@modelcontextprotocol\/sdk\/dist\/esm\/client\/streamableHttp\.js$/] } },
      testTimeout: 30_000,
      hookTimeout: 60_000,
      globalSetup: [`${GLOBAL_SETUP}/temporary-root.ts`, ...(database === "postgres" ? [`${GLOBAL_SETUP}/postgres-server.ts`] : [])],
      // The parity test compares both backends in one run, so it belongs to the run that has Postgres.
      ...(database === "sqlite" ? { exclude: ["test/backend-parity.test.ts", "**/node_modules/**"] } : {}),
    },
  };
}

export const serverProjects = (root: string) => [serverProject("sqlite", root), serverProject("postgres", root)];
