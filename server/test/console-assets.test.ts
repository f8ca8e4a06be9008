import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, temporaryDirectory, type TestServer } from "@engram/test-support";
import { configFromEnv } from "../src/config";

/**
 * The console is served at `/` beside the service: its page for any path a browser asks for as HTML, its
 * hashed assets cached for good, and never in place of a service route's JSON answer.
 */

const html = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
let server: TestServer;

function fakeBuild(): string {
  const directory = temporaryDirectory("engram-console-build-");
  mkdirSync(join(directory, "assets"));
  writeFileSync(join(directory, "index.html"), "<!doctype html><title>Engram console</title><div id=root></div>");
  writeFileSync(join(directory, "assets", "index-abc123.js"), "console.log('console');");
  return directory;
}

beforeAll(async () => {
  server = await startTestServer({ consoleDir: fakeBuild() });
});
afterAll(() => server?.stop());

describe("the console at /", () => {
  it("answers the page at / and at any console path, with a strict content security policy", async () => {
    for (const path of ["/", "/memories", "/memories/mem_123?q=x", "/assistants/asst_1"]) {
      const answer = await fetch(`${server.url}${path}`, { headers: html });
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get("content-type")).toContain("text/html");
      expect(await answer.text()).toContain("Engram console");
      expect(answer.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(answer.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
      expect(answer.headers.get("cache-control")).toBe("no-cache");
    }
  });

  it("serves hashed assets as immutable, and a missing asset as a plain 404", async () => {
    const asset = await fetch(`${server.url}/assets/index-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toContain("javascript");
    expect(asset.headers.get("cache-control")).toContain("immutable");

    const missing = await fetch(`${server.url}/assets/index-gone.js`, { headers: html });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "route_not_found" } });
  });

  it("never answers a service path with the page, even to a browser", async () => {
    for (const path of ["/v1/nothing", "/v1", "/api/nothing", "/mcp"]) {
      const answer = await fetch(`${server.url}${path}`, { headers: html });
      expect(answer.status, path).not.toBe(200);
      expect(answer.headers.get("content-type"), path).toContain("application/json");
    }
    expect((await fetch(`${server.url}/openapi.json`, { headers: html })).headers.get("content-type")).toContain("application/json");
  });

  it("answers JSON clients and other methods as before: 404 in the documented shape", async () => {
    const json = await fetch(`${server.url}/memories`, { headers: { accept: "application/json" } });
    expect(json.status).toBe(404);
    expect(await json.json()).toMatchObject({ error: { code: "route_not_found" } });
    const anything = await fetch(`${server.url}/memories`);
    expect(anything.status).toBe(404);
    const post = await fetch(`${server.url}/`, { method: "POST", headers: html });
    expect(post.status).toBe(404);
  });

  it("serves nothing at / when no console is configured", async () => {
    const bare = await startTestServer();
    try {
      expect((await fetch(`${bare.url}/`, { headers: html })).status).toBe(404);
    } finally {
      await bare.stop();
    }
  });
});

describe("ENGRAM_CONSOLE_DIR", () => {
  it("takes a built console, `off`, and refuses a folder without index.html", () => {
    const build = fakeBuild();
    expect(configFromEnv({ ENGRAM_CONSOLE_DIR: build }).consoleDir).toBe(build);
    expect(configFromEnv({ ENGRAM_CONSOLE_DIR: "off" }).consoleDir).toBeNull();
    expect(() => configFromEnv({ ENGRAM_CONSOLE_DIR: temporaryDirectory() })).toThrow(/ENGRAM_CONSOLE_DIR must be a built console/);
  });
});
