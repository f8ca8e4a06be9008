import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The console package's build (`pnpm --filter @engram/console build`), or null when it has not been built. */
export function builtConsoleDir(): string | null {
  try {
    const directory = join(dirname(createRequire(import.meta.url).resolve("@engram/console/package.json")), "dist");
    return existsSync(join(directory, "index.html")) ? directory : null;
  } catch {
    // Installed without the console package (a server-only deployment): there is nothing to serve.
    return null;
  }
}
