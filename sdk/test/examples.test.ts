import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { memoryScopes } from "@engram/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@engram/test-support";
import { Engram } from "../src";

// The programs in examples/ run as a user would run them, each as its own process against the real server.
const examples = join(dirname(fileURLToPath(import.meta.url)), "../../examples");
const bin = (name: string) => join(examples, "../node_modules/.bin", name);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

/** A fresh organization's token with every memory scope and chat, as the development token has. */
async function freshToken(): Promise<string> {
  return server.newToken(await server.newOrg(), { scopes: [...memoryScopes, "inference:chat"] });
}

async function runExample(command: string, args: string[], token: string): Promise<string> {
  const env = { ...process.env, ENGRAM_BASE_URL: server.url, ENGRAM_TOKEN: token };
  try {
    const { stdout } = await promisify(execFile)(command, args, { cwd: examples, env, encoding: "utf8" });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${args.join(" ")} failed:\n${stdout ?? ""}${stderr ?? ""}`);
  }
}
const tsx = (file: string, token: string, ...args: string[]) => runExample(bin("tsx"), ["--conditions=source", file, ...args], token);

describe("the examples, run against a real server", () => {
  it("sdk/memory-basics.ts", async () => {
    const output = await tsx("sdk/memory-basics.ts", await freshToken());
    expect(output).toContain("recalled 1 memories");
    expect(output).toContain("Payments deploys with `make release` after CI is green.");
    expect(output).toMatch(/history: created by token:\S+, reinforced by examples, suppressed by token:\S+, restored by token:\S+/);
    expect(output).toContain("unknown memories answer 404 memory_not_found");
  });

  it("sdk/events.ts", async () => {
    const output = await tsx("sdk/events.ts", await freshToken());
    expect(output).toMatch(/ci event evt_\S+: candidate; workflow/);
    expect(output).toMatch(/incident event evt_\S+ \(new, key derived\)/);
    expect(output).toMatch(/candidate mem_\S+ \(candidate, event\) from pagerduty incident.resolved/);
  });

  it("sdk/assistant.ts, twice: the second run replays its knowledge instead of duplicating it", async () => {
    const token = await freshToken();
    const first = await tsx("sdk/assistant.ts", token, "How do I roll back payments-api?");
    expect(first).toContain("make rollback VERSION=<previous tag>");
    expect(first).toContain("reinforced 2 memories");
    await tsx("sdk/assistant.ts", token);
    const { memories } = await new Engram({ baseUrl: server.url, token }).agent("oncall-assistant").memory.recall({ query: "payments-api" });
    expect(memories.map((m) => m.reinforcementCount)).toEqual([2, 2]);
  });

  it("openai/chat.ts: the official openai package against the gateway", async () => {
    const token = await freshToken();
    const engram = new Engram({ baseUrl: server.url, token });
    await engram.memory.remember({ text: "Payments deploys with make release after CI is green." });
    await engram.agent("triage-bot").memory.remember({ text: "For a P1, page the service owner through PagerDuty." });
    const output = await runExample(bin("tsx"), ["openai/chat.ts"], token);
    expect(output).toMatch(/memories used: 1, requests left: \d+/);
    expect(output.match(/make release after CI is green/g)?.length).toBeGreaterThanOrEqual(2);
    expect(output).toMatch(/triage-bot: .*page the service owner through PagerDuty/s);
  });

  it("openapi/client.ts: the generated client", async () => {
    const output = await runExample(bin("tsx"), ["openapi/client.ts"], await freshToken());
    expect(output).toMatch(/remembered mem_\S+ \(durable\)/);
    expect(output).toContain("recalled 1; context:");
    expect(output).toContain("history: created");
    expect(output).toContain("tombstoned: tombstoned");
    expect(output).toContain("unknown memory: 404 memory_not_found");
  });

  it("openapi/engram-api.ts is what openapi-typescript makes of contract/openapi.json today", async () => {
    const dir = mkdtempSync(join(tmpdir(), "engram-openapi-"));
    try {
      await runExample(join(examples, "node_modules/.bin/openapi-typescript"), ["../contract/openapi.json", "-o", join(dir, "engram-api.ts")], "unused");
      const committed = readFileSync(join(examples, "openapi/engram-api.ts"), "utf8");
      expect(committed, "run: pnpm --filter @engram/examples openapi:generate").toBe(readFileSync(join(dir, "engram-api.ts"), "utf8"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("curl/walkthrough.sh", async () => {
    const output = await runExample("bash", ["curl/walkthrough.sh"], await freshToken());
    expect(output).toMatch(/idempotent-replayed: true/i);
    expect(output).toContain('"state":"tombstoned"');
    expect(output).toContain("data: [DONE]");
    expect(output).toContain('"code":"memory_not_found"');
  });
});
