import { describe, expect, it } from "vitest";
import { apiClient, startServerOn, startTestServer } from "@engram/test-support";

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
});
