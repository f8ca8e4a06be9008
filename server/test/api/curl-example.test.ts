import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@engram/test-support";

const script = fileURLToPath(new URL("../../../examples/curl/capabilities.sh", import.meta.url));
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

/**
 * The README's promise, as a new user would keep it: with the owner's credentials, curl and a cookie jar, read
 * the registry, create assistants, and see every rule refuse a bad PATCH with the documented body. The script
 * itself checks each status; this checks it ran through and what it showed.
 */
it("examples/curl/capabilities.sh runs through against a fresh free-plan organization", async () => {
  const orgId = await server.newOrg({ plan: "free" });
  const owner = await server.newPerson(orgId, "owner");
  const { stdout } = await promisify(execFile)("bash", [script, server.url], {
    env: { ...process.env, ENGRAM_ADMIN_EMAIL: owner.email, ENGRAM_ADMIN_PASSWORD: owner.password },
  });
  for (const problem of [
    "is for organization-wide (org_shared) assistants only.",
    "is for personal (employee_personal) assistants only.",
    "The free tier allows at most 3 capabilities, answer_questions included; 4 were given.",
    "review_pull_requests needs the rise tier or above",
    "capabilityConfigs.search_memory.maxMemories is required.",
    '"error":"permission_denied"',
    '"error":"precondition_failed"',
  ]) {
    expect(stdout).toContain(problem);
  }
  expect(stdout.match(/"error":"validation_failed"/g)).toHaveLength(6);
});
