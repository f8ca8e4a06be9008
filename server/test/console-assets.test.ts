import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, temporaryDirectory, type TestServer } from "@engram/test-support";
import { configFromEnv } from "../src/config";
import { sendRaw, type RawResponse } from "./hostile/raw-http";

/**
 * The console is served at `/` beside the service: its page for any path a browser asks for as HTML, its
 * hashed assets cached for good, and never in place of a service route's JSON answer.
 */

const html = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
let server: TestServer;

const SECRET = "NOT FOR THE WEB";

/** A build as Vite writes it, with files beside and above the assets folder that must never be served from it. */
function fakeBuild(): string {
  const parent = temporaryDirectory("engram-console-build-");
  writeFileSync(join(parent, "secret.txt"), SECRET);
  const directory = join(parent, "dist");
  mkdirSync(join(directory, "assets"), { recursive: true });
  mkdirSync(join(directory, ".vite"));
  writeFileSync(join(directory, "index.html"), "<!doctype html><title>Engram console</title><div id=root></div>");
  writeFileSync(join(directory, "secret.txt"), SECRET);
  writeFileSync(join(directory, ".vite", "manifest.json"), JSON.stringify({ secret: SECRET }));
  writeFileSync(join(directory, "assets", "index-abc123.js"), "console.log('console');");
  writeFileSync(join(directory, "assets", ".hidden"), SECRET);
  return directory;
}

/** Exactly these bytes on the wire: fetch would normalise the paths under test. */
const raw = (path: string, method = "GET", headers: Record<string, string> = html): Promise<RawResponse> => sendRaw(server.url, { method, path, headers });

function expectJsonNotFound(res: RawResponse, what: string): void {
  expect({ status: res.status, type: res.headers["content-type"] }, `${what}: ${res.text.slice(0, 200)}`).toEqual({ status: 404, type: "application/json; charset=utf-8" });
  expect(res.json?.error?.code, what).toBe("route_not_found");
  expect(res.text, what).not.toContain(SECRET);
}

function expectSecurityHeaders(res: RawResponse, what: string): void {
  expect(res.headers["content-security-policy"], what).toContain("frame-ancestors 'none'");
  expect(res.headers["x-content-type-options"], what).toBe("nosniff");
  expect(res.headers["referrer-policy"], what).toBe("same-origin");
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

describe("the console against a hostile client", () => {
  it("never serves a file outside the assets folder, whatever the spelling of the path", async () => {
    const paths = [
      "/assets/../secret.txt", "/assets/..%2fsecret.txt", "/assets/..%2Fsecret.txt", "/assets/%2e%2e/secret.txt", "/assets/%2E%2E%2Fsecret.txt",
      "/assets/..%5csecret.txt", "/assets/..\\secret.txt", "/assets/%2e%2e%5c%2e%2e%5csecret.txt", "/assets/....//secret.txt", "/assets/..%252fsecret.txt",
      "/assets/%c0%ae%c0%ae/secret.txt", "/assets/..%00/secret.txt", "/assets/index-abc123.js%00", "/assets/%00", "/assets/index-abc123.js%00.html",
      "/assets/.hidden", "/assets/%2ehidden", "/assets/../.vite/manifest.json", "/assets/..%2f.vite%2fmanifest.json", "/assets//../secret.txt",
      "/assets/%2e%2e/%2e%2e/secret.txt", "/assets/" + "../".repeat(40) + "etc/passwd", "/assets/..%2f..%2f..%2f..%2fetc%2fpasswd", `/assets/${"a".repeat(4_000)}.js`,
    ];
    for (const path of paths) {
      for (const method of ["GET", "HEAD"]) {
        const res = await raw(path, method);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.text, `${method} ${path}`).not.toContain(SECRET);
        expect(res.headers["content-type"], `${method} ${path}`).not.toContain("text/html");
      }
    }
    // Files of the build outside the assets folder are no assets either; the manifest is never served.
    for (const path of ["/.vite/manifest.json", "/secret.txt", "/%2e%2e/secret.txt"]) {
      const res = await raw(path);
      expect(res.text, path).not.toContain(SECRET);
    }
  });

  it("never answers a service path with the page, in any case, encoding, slash or dot spelling", async () => {
    const paths = [
      "/V1/memory", "/API/organization", "/Api/auth/me", "/MCP", "//v1/memory", "///api/organization", "/./v1/models", "/memories/../v1/models",
      "/v1%2Fmemory", "/api%2forganization", "/%61pi/organization", "/%76%31/models", "/api;x", "/v1;jsessionid=1", "/api\\organization", "/v1\\models",
      "/mcp%2f", "/%2e/api/organization", "/memories/..%2F..%2Fapi%2Forganization", "/x/%2e%2e/api/organization", "/assets", "/ASSETS/index-abc123.js",
      "/assets%2findex-abc123.js", "/%00", "/memories%00", "/%ZZ", "/memories/%E0%A4%A",
    ];
    for (const path of paths) {
      for (const method of ["GET", "HEAD"]) {
        const res = await raw(path, method);
        expect(res.headers["content-type"], `${method} ${path}`).not.toContain("text/html");
        expect(res.status, `${method} ${path}`).toBe(404);
        if (method === "GET") expectJsonNotFound(res, path);
      }
    }
  });

  it("answers HEAD as GET without a body, for the page and for assets", async () => {
    for (const path of ["/", "/memories/mem_1", "/assets/index-abc123.js"]) {
      const get = await raw(path);
      const head = await raw(path, "HEAD");
      expect(head.status, path).toBe(200);
      expect(head.text, path).toBe("");
      for (const name of ["content-type", "content-length", "cache-control", "content-security-policy", "x-content-type-options", "vary"]) {
        expect(head.headers[name], `${path} ${name}`).toEqual(get.headers[name]);
      }
    }
  });

  it("puts its security headers on everything it answers: page, assets, revalidations and its own 404s", async () => {
    const page = await raw("/memories");
    const asset = await raw("/assets/index-abc123.js", "GET", {});
    const revalidated = await raw("/memories", "GET", { ...html, "if-none-match": String(page.headers.etag) });
    expect(revalidated.status).toBe(304);
    const cachedAsset = await raw("/assets/index-abc123.js", "GET", { "if-none-match": String(asset.headers.etag) });
    expect(cachedAsset.status).toBe(304);
    const missing = await raw("/assets/index-gone.js");
    const traversal = await raw("/assets/..%2fsecret.txt");
    const jsonClient = await raw("/memories", "GET", { accept: "application/json" });
    for (const [what, res] of Object.entries({ page, asset, revalidated, cachedAsset, missing, traversal, jsonClient })) expectSecurityHeaders(res, what);
  });

  it("caches assets for good and the page never without asking, and says the answer depends on Accept", async () => {
    const asset = await raw("/assets/index-abc123.js", "GET", {});
    expect(asset.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    for (const path of ["/", "/memories/mem_1?q=x"]) {
      const page = await raw(path);
      expect(page.headers["cache-control"], path).toBe("no-cache");
      expect(page.headers.vary, path).toMatch(/\bAccept\b/);
      // The JSON 404 a JSON client gets at the same address must not be served from a cache to a browser, or the reverse.
      const json = await raw(path, "GET", { accept: "application/json" });
      expect(json.status, path).toBe(404);
      expect(json.headers.vary, path).toMatch(/\bAccept\b/);
    }
    // A missing asset is not cached as if it were one.
    expect((await raw("/assets/index-gone.js")).headers["cache-control"] ?? "").not.toContain("immutable");
  });

  it("answers odd Accept headers by what they prefer, never with a 500", async () => {
    const cases: Array<[string | null, "html" | "json"]> = [
      [null, "json"], ["", "json"], ["*/*", "json"], ["application/json", "json"], ["application/json, text/html", "json"], ["text/html;q=0", "json"],
      ["text/*", "html"], ["text/html, application/json", "html"], ["application/json;q=0.1, text/html", "html"], ["image/webp,*/*;q=0.8", "json"],
      [";;;,,,", "json"], ["x".repeat(6_000), "json"], [Array(500).fill("text/plain;q=0.1").join(","), "json"],
    ];
    for (const [accept, expected] of cases) {
      const res = await raw("/memories", "GET", accept === null ? {} : { accept });
      const what = `Accept ${String(accept).slice(0, 40)}`;
      if (expected === "html") {
        expect(res.status, what).toBe(200);
        expect(res.headers["content-type"], what).toContain("text/html");
      } else {
        expectJsonNotFound(res, what);
      }
    }
  });

  it("answers other methods with the JSON 404, never a file or the page", async () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND", "SEARCH"]) {
      for (const path of ["/", "/memories", "/assets/index-abc123.js", "/index.html"]) {
        const res = await raw(path, method);
        expectJsonNotFound(res, `${method} ${path}`);
        expect(res.text, `${method} ${path}`).not.toContain("console.log");
      }
    }
  });

  it("answers long console paths with the page and longer ones with the documented 431, never a 500", async () => {
    const long = await raw(`/memories/${"m".repeat(8_000)}`);
    expect(long.status).toBe(200);
    const tooLong = await raw(`/${"a".repeat(100_000)}`);
    expect(tooLong.status).toBe(431);
    expect(tooLong.json?.error?.code).toBe("headers_too_large");
  });
});

describe("ENGRAM_CONSOLE_DIR", () => {
  it("takes a built console, `off`, and refuses a folder without index.html", () => {
    const build = fakeBuild();
    expect(configFromEnv({ ENGRAM_CONSOLE_DIR: build }).consoleDir).toBe(build);
    expect(configFromEnv({ ENGRAM_CONSOLE_DIR: "off" })).toMatchObject({ consoleDir: null, consoleOff: true });
    expect(configFromEnv({}).consoleOff).toBe(false);
    expect(() => configFromEnv({ ENGRAM_CONSOLE_DIR: temporaryDirectory() })).toThrow(/ENGRAM_CONSOLE_DIR must be a built console/);
  });
});
