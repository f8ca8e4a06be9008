import { rawRequest, type SessionClient, startTestServer, type TestServer } from "@engram/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../../src/db/generated/sqlite/client.ts";
import { countTurns } from "../event-loop-turns";

/**
 * The metrics scan the whole environment, and reflection reads it in pages. On SQLite the driver answers on the
 * thread that asks, so a scan or a page on the server's own connection held the event loop for as long as it
 * ran: both run in a thread of their own, and the loop keeps turning meanwhile. The same holds on Postgres,
 * whose server scans.
 */

const COPIES = 40_000;
const MEMORY_COLUMNS = Object.keys(Prisma.MemoryScalarFieldEnum);

let server: TestServer;
let owner: SessionClient;
let orgId: string;
beforeAll(async () => {
  server = await startTestServer({ rateLimits: "off" });
  orgId = await server.newOrg({ plan: "spark" });
  const token = await server.newToken(orgId);
  const res = await rawRequest(server.url, "/v1/memory", { token, body: JSON.stringify({ text: "The payments service deploys on Tuesdays.", memoryKind: "fact" }) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  // Copies of that memory, as many writes would leave them: one statement on either database.
  const columns = MEMORY_COLUMNS.map((column) => (column === "id" ? `'mem_copy_' || n.i` : `m."${column}"`)).join(", ");
  await server.db.$executeRawUnsafe(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${COPIES}) ` +
      `INSERT INTO "Memory" (${MEMORY_COLUMNS.map((column) => `"${column}"`).join(", ")}) SELECT ${columns} FROM n CROSS JOIN "Memory" m WHERE m."id" = '${res.body.memory.id}'`,
  );
  owner = await server.signedIn(orgId, "owner");
}, 120_000);
afterAll(() => server?.stop());

describe("metrics over a large environment", () => {
  it("are counted while the event loop keeps turning", async () => {
    const turns = countTurns();
    const res = await owner.get("/api/memory/reflection/metrics");
    const counted = turns.stop();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.summary.total).toBe(COPIES + 1);
    expect(res.body.summary.byKind.fact).toBe(COPIES + 1);
    // Each scan of 40,000 rows takes tens of milliseconds, turns of an idle loop microseconds: held on the loop,
    // the request saw a few turns between its statements.
    expect(counted).toBeGreaterThan(200);
  });

  it("are counted so by the summary and the histograms alone", async () => {
    for (const path of ["/api/memory/reflection/metrics/summary", "/api/memory/reflection/metrics/distribution"]) {
      const turns = countTurns();
      const res = await owner.get(path);
      const counted = turns.stop();
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(counted, path).toBeGreaterThan(100);
    }
  });
});

describe("reflection's pages over a large environment", () => {
  it("are read while the event loop keeps turning", async () => {
    const scope = { orgId, environment: "production" } as const;
    const turns = countTurns();
    const page = await server.services.store.reflection().memories.page(scope, ["durable"], null, COPIES + 1);
    const counted = turns.stop();
    expect(page).toHaveLength(COPIES + 1);
    expect(new Set(page.map(({ id }) => id)).size).toBe(COPIES + 1);
    // Read on the loop, a page gave it no turn until its rows were all read.
    expect(counted).toBeGreaterThan(200);
  });
});
