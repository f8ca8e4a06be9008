#!/usr/bin/env node
// The `engram` command. A committed launcher rather than dist/cli.js itself, so that installing the workspace can
// link the command before the first build.
import { existsSync } from "node:fs";

const cli = new URL("../dist/cli.js", import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write("engram: not built yet; run `pnpm --filter @engram/server build` (or `pnpm start`) first\n");
  process.exit(1);
}
await import(cli.href);
