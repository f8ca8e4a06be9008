import { contract, memoryScopes, ZErrorBody } from "@engram/contract";
import { isAppRoute, type AppRoute } from "@ts-rest/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, startTestServer, type TestServer } from "@engram/test-support";
import { parseRateLimitSetting } from "../src/domain/rate-limits/policy";
import { sendRaw, type RawResponse } from "./hostile/raw-http";

/**
 * Routes match exactly: a path in another case or with a trailing slash is no route at all (404
 * route_not_found, not counted), so it can neither reach a handler nor dodge its route group's limit. Every
 * path the contract serves is counted in its own group.
 */

const limits = { memory: 50, events: 30, inference: 40 } as const;

let server: TestServer;
let memoryId: string;

beforeAll(async () => {
  server = await startTestServer({ rateLimits: parseRateLimitSetting("*.memory=50,*.events=30,*.inference=40,spark.*=2") });
  const { token } = await tenant();
  const created = await rawRequest(server.url, "/v1/memory", { token, body: JSON.stringify({ text: "A memory to address." }) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  memoryId = created.body.memory.id;
});
afterAll(() => server?.stop());

async function tenant(plan: "free" | "spark" = "free") {
  const orgId = await server.newOrg({ plan });
  return { orgId, token: await server.newToken(orgId, { scopes: [...memoryScopes, "inference:chat"] }) };
}

interface Route {
  name: string;
  method: string;
  path: string;
  group: keyof typeof limits;
}

/** Every authenticated route of the contract, with its path parameters filled in. */
function contractRoutes(): Route[] {
  const routers = { memory: contract.memory, events: contract.events, inference: contract.inference };
  return Object.values(routers).flatMap((router) =>
    Object.entries(router)
      .filter((entry): entry is [string, AppRoute] => isAppRoute(entry[1]))
      .map(([name, route]) => {
        const path = route.path.replace(":agentSlug", "bot").replace(":id", "MEMORY_ID");
        const group = path.startsWith("/v1/memory/events") ? "events" : path.startsWith("/v1/memory") ? "memory" : "inference";
        return { name, method: route.method, path, group };
      }),
  );
}

const chatBody = JSON.stringify({ model: "engram-memory-1", messages: [{ role: "user", content: "hello" }] });

function send(route: Route, path: string, token: string): Promise<RawResponse> {
  const body = route.method === "POST" ? (route.group === "inference" ? chatBody : "{}") : undefined;
  return sendRaw(server.url, {
    method: route.method,
    path: path.replace("MEMORY_ID", memoryId),
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body,
  });
}

/** The path with its last fixed segment capitalised: `/v1/memory/x/provenance` -> `/v1/memory/x/Provenance`. */
function capitalised(path: string): string {
  const segments = path.split("/");
  const last = segments.findLastIndex((segment) => /^[a-z]/.test(segment) && segment !== "bot");
  segments[last] = segments[last]!.charAt(0).toUpperCase() + segments[last]!.slice(1);
  return segments.join("/");
}

function expectRouteNotFound(res: RawResponse, description: string): void {
  expect({ status: res.status, code: res.json?.error?.code }, `${description}: ${res.text}`).toEqual({ status: 404, code: "route_not_found" });
  expect(ZErrorBody.safeParse(res.json).success).toBe(true);
  expect(res.headers["ratelimit-limit"], description).toBeUndefined();
}

const routes = contractRoutes();

describe.each(routes)("$name ($method $path)", (route) => {
  it("is not served in another case or with a trailing slash, and such requests are not counted", async () => {
    const { token } = await tenant();
    const variants = [route.path.toUpperCase(), capitalised(route.path), `${route.path}/`, route.path.replace("/v1/", "/V1/")];
    for (const path of variants) expectRouteNotFound(await send(route, path, token), `${route.method} ${path}`);

    // The exact path is served and counted in its own group, as the first request of this organization's window.
    const exact = await send(route, route.path, token);
    expect(exact.json?.error?.code, exact.text).not.toBe("route_not_found");
    expect(exact.status, exact.text).toBeLessThan(500);
    expect({ limit: exact.headers["ratelimit-limit"], remaining: exact.headers["ratelimit-remaining"] }).toEqual({
      limit: String(limits[route.group]),
      remaining: String(limits[route.group] - 1),
    });
  });
});

describe("a spent limit", () => {
  it("cannot be dodged by the case or a trailing slash of the path", async () => {
    const { token } = await tenant("spark");
    const spend = (path: string, body: string) => sendRaw(server.url, { path, body, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } });
    const recall = JSON.stringify({ query: "anything" });
    const event = JSON.stringify({ type: "deploy.completed", text: "Deployed." });
    for (let i = 0; i < 2; i++) {
      expect((await spend("/v1/memory/recall", recall)).status).toBe(200);
      expect((await spend("/v1/memory/events", event)).status).toBe(201);
      expect((await spend("/v1/chat/completions", chatBody)).status).toBe(200);
    }
    const dodges: Array<[string, string, string]> = [
      ["POST", "/V1/MEMORY/RECALL", recall],
      ["POST", "/v1/Memory/Events", event],
      ["POST", "/v1/memory/events/", event],
      ["POST", "/V1/CHAT/COMPLETIONS", chatBody],
      ["POST", "/v1/chat/completions/", chatBody],
      ["GET", "/v1/models/", ""],
      ["GET", "/V1/models", ""],
    ];
    for (const [method, path, body] of dodges) {
      const res = await sendRaw(server.url, { method, path, body: body || undefined, headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) } });
      expectRouteNotFound(res, `${method} ${path}`);
    }
    for (const [path, body] of [["/v1/memory/recall", recall], ["/v1/memory/events", event], ["/v1/chat/completions", chatBody]] as const) {
      const res = await spend(path, body);
      expect({ status: res.status, code: res.json?.error?.code, remaining: res.headers["ratelimit-remaining"] }).toEqual({ status: 429, code: "rate_limit_exceeded", remaining: "0" });
    }
    const models = await sendRaw(server.url, { method: "GET", path: "/v1/models", headers: { authorization: `Bearer ${token}` } });
    expect(models.status).toBe(429);
  });

  it("counts a memory route whose id happens to read `events` as memory", async () => {
    const { token } = await tenant();
    const res = await sendRaw(server.url, { method: "DELETE", path: "/v1/memory/events", headers: { authorization: `Bearer ${token}` } });
    expect({ status: res.status, code: res.json?.error?.code, limit: res.headers["ratelimit-limit"] }).toEqual({ status: 404, code: "memory_not_found", limit: String(limits.memory) });
  });
});

describe("paths no route serves", () => {
  it("answer 404 route_not_found and are not counted; without a token, /v1 paths answer 401 first", async () => {
    const { token } = await tenant();
    const paths = ["/v1/memory/not/a/route", "/v1/nothing", "/v1/health/", "/V1/HEALTH", "/OPENAPI.JSON"];
    for (const path of paths) expectRouteNotFound(await sendRaw(server.url, { method: "GET", path, headers: { authorization: `Bearer ${token}` } }), `GET ${path}`);
    const first = await sendRaw(server.url, { method: "GET", path: "/v1/models", headers: { authorization: `Bearer ${token}` } });
    expect(first.headers["ratelimit-remaining"]).toBe(String(limits.inference - 1));

    const anonymous = await Promise.all(paths.map((path) => sendRaw(server.url, { method: "GET", path })));
    expect(anonymous.map((res) => [res.status, res.json?.error?.code])).toEqual([
      [401, "invalid_api_key"],
      [401, "invalid_api_key"],
      [401, "invalid_api_key"],
      [404, "route_not_found"],
      [404, "route_not_found"],
    ]);
  });
});
