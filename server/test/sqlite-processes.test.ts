import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ServerProcess, startServerProcess, startTestServer, type TestServer } from "@engram/test-support";

/**
 * Several server processes on one database, as the README documents: on SQLite two OS processes share one
 * file (WAL), each waiting for the other's write lock rather than failing; on Postgres two pools share one
 * database. No request may fail from lock contention, and every write counts once.
 */
describe("two server processes on one database", () => {
  let server: TestServer;
  let other: ServerProcess;
  beforeAll(async () => {
    server = await startTestServer();
    other = await startServerProcess(server.database);
  });
  afterAll(async () => {
    await other?.stop();
    await server?.stop();
  });

  async function tenant() {
    const { orgId, token } = await server.newTenant();
    return { orgId, apis: [apiClient(server.url, token), apiClient(other.url, token)] as const };
  }

  it("20 concurrent reinforces split across the processes all succeed and all count", async () => {
    const { apis } = await tenant();
    const created = await apis[0].memory.encode({ body: { text: "Shared between two processes." } });
    if (created.status !== 201) throw new Error(`encode answered ${created.status}`);
    const id = created.body.memory.id;

    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => apis[i % 2]!.memory.reinforce({ params: { id }, body: {} })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const row = await server.db.memory.findUniqueOrThrow({ where: { id } });
    expect(row.reinforcementCount).toBe(20);
    expect(await server.db.memoryHistory.count({ where: { memoryId: id, action: "reinforced" } })).toBe(20);
  });

  it("a mixed write load across the processes answers no 5xx and stores every write once", async () => {
    const { orgId, apis } = await tenant();
    const seeded = await Promise.all(Array.from({ length: 4 }, (_, i) => apis[i % 2]!.memory.encode({ body: { text: `Seed memory ${i} about lighthouses.` } })));
    const ids = seeded.map((res) => (res.status === 201 ? res.body.memory.id : ""));

    const requests = Array.from({ length: 60 }, (_, i) => {
      const api = apis[i % 2]!;
      const id = ids[i % ids.length]!;
      switch (i % 6) {
        case 0:
          return api.memory.encode({ body: { text: `Mixed load memory ${i} about lighthouses.` } });
        case 1:
          // One key sent to both processes: one memory between them.
          return api.memory.encode({ body: { text: "Keyed across processes." }, headers: { "idempotency-key": "both-processes" } });
        case 2:
          return api.memory.reinforce({ params: { id }, body: {} });
        case 3:
          return api.memory.suppress({ params: { id }, body: {} });
        case 4:
          return api.memory.restore({ params: { id }, body: {} });
        default:
          return api.memory.retrieve({ body: { query: "lighthouses" } });
      }
    });
    const statuses = (await Promise.all(requests)).map((res) => res.status);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    expect(statuses.every((status) => [200, 201, 409].includes(status))).toBe(true);

    const stored = await server.db.memory.findMany({ where: { orgId }, select: { id: true, text: true, reinforcementCount: true } });
    expect(stored.filter((m) => m.text.startsWith("Mixed load"))).toHaveLength(10);
    expect(stored.filter((m) => m.text === "Keyed across processes.")).toHaveLength(1);
    expect(stored.reduce((sum, m) => sum + m.reinforcementCount, 0)).toBe(10);
  });
});
