import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The console package's build (`pnpm --filter @engram/console build`) in this workspace, or null when it has not
 * been built. Found by its place beside the server (`server/src` and the bundle in `server/dist` are both two
 * levels below the workspace root), not as a dependency: the console's tests depend on the server.
 */
export function builtConsoleDir(): string | null {
  const directory = fileURLToPath(new URL("../../packages/console/dist/", import.meta.url));
  return existsSync(`${directory}index.html`) ? directory : null;
}
