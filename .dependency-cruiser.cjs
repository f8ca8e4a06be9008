/**
 * The import rules of the workspace, checked by `pnpm lint` (see docs/architecture.md).
 * Dependencies point one way: http (and mcp) -> domain -> (its own ports) <- db / adapters; services.ts and server.ts wire them.
 * @type {import("dependency-cruiser").IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import cycle ties modules together so that neither can be read, tested or moved alone.",
      from: {},
      to: { circular: true },
    },
    {
      name: "http-not-to-storage",
      severity: "error",
      comment:
        "Handlers (HTTP routes and MCP tools) call domain services; the database and outbound clients are reached only through ports.",
      from: { path: "^server/src/(http|mcp)/" },
      to: { path: "^server/src/(db|adapters)/" },
    },
    {
      name: "domain-stays-plain",
      severity: "error",
      comment:
        "The domain is plain TypeScript: it declares the ports it needs and never knows HTTP, the database or clients.",
      from: { path: "^server/src/domain/" },
      to: {
        path: [
          "^server/src/(http|mcp|db|adapters)/",
          "(^|/)node_modules/(express|@prisma/[^/]+|pg|better-sqlite3|undici)/",
        ],
      },
    },
    {
      name: "db-not-to-http",
      severity: "error",
      comment: "Storage implements domain ports; it knows nothing of requests and responses.",
      from: { path: "^server/src/db/" },
      to: { path: "^server/src/(http|mcp)/" },
    },
    {
      name: "contract-stands-alone",
      severity: "error",
      comment: "The contract is shared by server and SDK, so it depends on neither.",
      from: { path: "^contract/" },
      to: { path: "^(server|sdk)/" },
    },
    {
      name: "console-through-the-contract",
      severity: "error",
      comment: "The console runs in the browser and reaches the server only over HTTP, through the shared contract.",
      from: { path: "^packages/console/src/" },
      to: { path: "^(server|sdk|packages/(retrieval|test-support))/" },
    },
    {
      name: "sdk-without-server",
      severity: "error",
      comment: "The SDK ships to users: it bundles the contract but never server code.",
      from: { path: "^sdk/src/" },
      to: { path: "^server/" },
    },
  ],
  options: {
    doNotFollow: { path: "(^|/)node_modules/" },
    exclude: { path: "(^|/)(dist|generated)/" },
    tsConfig: { fileName: "tsconfig.base.json" },
    tsPreCompilationDeps: true,
    // Resolve workspace packages to their sources, as the TypeScript configuration's "source" condition does.
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["source", "import", "require", "node", "default"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".json"],
    },
  },
};
