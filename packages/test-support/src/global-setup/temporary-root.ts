import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import "../provided-context";

/**
 * Vitest global setup: one folder for the run's temporary files, removed when the run ends. Test files remove
 * their own folders as they finish; this catches what a file that failed or was killed left behind.
 */
export default function setup(project: TestProject): () => void {
  const root = mkdtempSync(join(tmpdir(), "engram-test-run-"));
  project.provide("temporaryRoot", root);
  return () => rmSync(root, { recursive: true, force: true });
}
