import type { TTier } from "@engram/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SessionClient, type SessionResponse, startTestServer, type TestServer } from "@engram/test-support";

/**
 * The assistants and capabilities routes are counted per organization in the `capabilities` group, at the
 * plan's figure per 60-second window. The server's clock stands still one second into a minute, so no window
 * boundary can split a burst however slowly the machine runs it.
 */

const NOW = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 1_000);
const REGISTRY = "/api/capabilities/registry";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ now: () => NOW });
});
afterAll(() => server?.stop());

async function signedInOn(plan: TTier, role: "owner" | "member" = "owner") {
  const orgId = await server.newOrg({ plan });
  return { orgId, client: await server.signedIn(orgId, role) };
}

function limitHeaders(res: SessionResponse) {
  const read = (name: string) => res.headers.get(name);
  return {
    limit: read("ratelimit-limit"),
    remaining: read("ratelimit-remaining"),
    reset: read("ratelimit-reset"),
    legacy: [read("x-ratelimit-limit"), read("x-ratelimit-remaining"), read("x-ratelimit-reset")],
  };
}

/** Sends `count` GETs of the registry, `concurrency` at a time; answers them in sending order. */
async function burst(client: SessionClient, count: number, concurrency = 10): Promise<SessionResponse[]> {
  const results: SessionResponse[] = [];
  for (let sent = 0; sent < count; sent += concurrency) {
    const batch = Array.from({ length: Math.min(concurrency, count - sent) }, () => client.get(REGISTRY));
    results.push(...(await Promise.all(batch)));
  }
  return results;
}

function expectRefused(res: SessionResponse, limit: number) {
  expect(res.status).toBe(429);
  expect(Object.keys(res.body).sort()).toEqual(["error", "message", "retryAfter", "success"]);
  expect(res.body).toMatchObject({ success: false, error: "rate_limit_exceeded" });
  expect(res.body.message).toContain(String(limit));
  // One second into the minute: 59 seconds to the next window.
  expect(res.body.retryAfter).toBe(59);
  expect(res.headers.get("retry-after")).toBe("59");
  expect(limitHeaders(res)).toEqual({ limit: String(limit), remaining: "0", reset: "59", legacy: [String(limit), "0", "59"] });
}

describe("the capabilities group's limits", () => {
  it("Spark: 60 requests admitted in a window, the 61st refused with 429 in the /api failure shape", async () => {
    const { client } = await signedInOn("spark");
    const admitted = await burst(client, 60);
    expect(admitted.map((res) => res.status)).toEqual(Array(60).fill(200));
    for (const res of admitted) {
      const headers = limitHeaders(res);
      expect(headers.limit).toBe("60");
      expect(headers.reset).toBe("59");
      expect(headers.legacy).toEqual([headers.limit, headers.remaining, headers.reset]);
    }
    // Every admission counted once: the remaining figures are 59 down to 0, each once.
    expect(admitted.map((res) => Number(limitHeaders(res).remaining)).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));

    expectRefused(await client.get(REGISTRY), 60);
    // Every route of the group shares the count, writes included.
    expectRefused(await client.get("/api/assistants"), 60);
    const create = await client.post("/api/assistants", { name: "Over the limit", type: "org_shared" });
    expectRefused(create, 60);
    expect(await server.db.assistant.count({ where: { name: "Over the limit" } })).toBe(0);
    // The application group is counted apart.
    expect((await client.get("/api/auth/me")).status).toBe(200);
  });

  it("Free: 30 admitted, then refused", async () => {
    const { client } = await signedInOn("free");
    const first = await client.get(REGISTRY);
    expect(limitHeaders(first)).toMatchObject({ limit: "30", remaining: "29" });
    const rest = await burst(client, 29);
    expect(rest.every((res) => res.status === 200)).toBe(true);
    expectRefused(await client.get(REGISTRY), 30);
  });

  it("Seed and Rise report 200, Boost 1,000", async () => {
    for (const [plan, limit] of [["seed", "200"], ["rise", "200"], ["boost", "1000"]] as const) {
      const { client } = await signedInOn(plan);
      const res = await client.get(REGISTRY);
      expect(res.status).toBe(200);
      expect(limitHeaders(res)).toEqual({ limit, remaining: String(Number(limit) - 1), reset: "59", legacy: [limit, String(Number(limit) - 1), "59"] });
    }
  });

  it("counts per organization: its members share one count, another organization is unaffected", async () => {
    const { orgId, client } = await signedInOn("spark");
    const colleague = await server.signedIn(orgId, "member");
    const { client: stranger } = await signedInOn("spark");
    expect((await burst(client, 30)).every((res) => res.status === 200)).toBe(true);
    expect((await burst(colleague, 30)).every((res) => res.status === 200)).toBe(true);
    expectRefused(await colleague.get(REGISTRY), 60);
    expectRefused(await client.get(REGISTRY), 60);

    const other = await stranger.get(REGISTRY);
    expect(other.status).toBe(200);
    expect(limitHeaders(other)).toMatchObject({ limit: "60", remaining: "59" });
  });

  it("a request without a session is refused 401 and counts against no one", async () => {
    const { client } = await signedInOn("free");
    const anonymous = await fetch(server.url + REGISTRY);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("ratelimit-limit")).toBeNull();
    expect(limitHeaders(await client.get(REGISTRY))).toMatchObject({ remaining: "29" });
  });
});
