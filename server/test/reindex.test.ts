import { describe, expect, it } from "vitest";
import { analyzeText } from "@engram/retrieval";
import { apiClient, startServerOn, startTestServer } from "@engram/test-support";
import { connectPrisma } from "../src/db/prisma";

describe("search text re-analysis", () => {
  it("re-analyses memories an older analyser indexed when the store opens", async () => {
    const server = await startTestServer();
    const { token } = await server.newTenant();
    const created = await apiClient(server.url, token).memory.encode({ body: { text: "Deploys of billing-worker need a feature flag." } });
    const id = (created.body as { memory: { id: string } }).memory.id;
    // As an older version of Engram would have left it: a haystack the current analyser cannot match.
    await server.db.memory.update({ where: { id }, data: { searchText: "deploys of billing-worker need a feature flag.", searchVersion: 0 } });
    await server.stop();

    const restarted = await startServerOn(server.database);
    try {
      const found = await apiClient(restarted.url, token).memory.retrieve({ body: { query: "deploying billing worker" } });
      expect(found.status === 200 && found.body.memories.map((m) => m.id)).toEqual([id]);
    } finally {
      await restarted.close();
    }
  });

  it("rewrites only the search texts the current analyser changes", async () => {
    const server = await startTestServer();
    const { orgId, token } = await server.newTenant();
    const api = apiClient(server.url, token);
    const encode = async (text: string) => ((await api.memory.encode({ body: { text } })).body as { memory: { id: string } }).memory.id;
    const plain = await encode("The ledger settles nightly.");
    const expanding = await encode("\ufdfa".repeat(7_000));
    const plainText = (await server.db.memory.findUniqueOrThrow({ where: { id: plain } })).searchText;
    // As the analyser before the bound on terms indexed it: four words for each of the 7,000 characters.
    const unbounded = Array.from({ length: 7_000 }, () => "صلى الله عليه وسلم").join(" ");
    await server.db.memory.update({ where: { id: expanding }, data: { searchText: unbounded, searchVersion: 0 } });
    await server.db.memory.update({ where: { id: plain }, data: { searchVersion: 0 } });
    const scope = { orgId, environment: "production" } as const;
    const before = await server.services.store.memories.collectionState(scope);
    await server.stop();

    const restarted = await startServerOn(server.database);
    try {
      const db = await connectPrisma(server.database);
      const rows = await db.memory.findMany({ where: { id: { in: [plain, expanding] } }, orderBy: { id: "asc" } });
      await db.$disconnect();
      const byId = new Map(rows.map((row) => [row.id, row]));
      expect(byId.get(expanding)!.searchText).toBe(analyzeText(` ${"\ufdfa".repeat(7_000)}`).join(" "));
      expect(byId.get(expanding)!.searchText.length).toBeLessThan(unbounded.length / 5);
      expect(byId.get(plain)!.searchText).toBe(plainText);
      expect(rows.map((row) => row.searchVersion)).toEqual([rows[0]!.searchVersion, rows[0]!.searchVersion]);
      expect(rows[0]!.searchVersion).toBeGreaterThan(0);
      // One memory's terms changed: one version, as one write of it would make.
      const after = await restarted.services.store.memories.collectionState(scope);
      expect(after.version).toBe(before.version + 1n);
      expect(after.documents).toBe(before.documents);
    } finally {
      await restarted.close();
    }
  });
});
