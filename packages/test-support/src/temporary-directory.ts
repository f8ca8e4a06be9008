import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, inject } from "vitest";
import "./provided-context";

const temporaryDirectories: string[] = [];

/** A new temporary folder, removed when the test file that asked for it ends (or else with the run's folder). */
export function temporaryDirectory(prefix = "engram-test-"): string {
  const dir = mkdtempSync(join(inject("temporaryRoot") ?? tmpdir(), prefix));
  temporaryDirectories.push(dir);
  return dir;
}

// Registered while the test file is being collected, before the file's own hooks; vitest runs "after" hooks in
// reverse order, so this runs once the file's servers and connections are closed.
afterAll(() => {
  for (const dir of temporaryDirectories.splice(0)) rmSync(dir, { recursive: true, force: true });
});
