import { randomUUID } from "node:crypto";
import type { TEnvironment } from "@engram/contract";
import { baseLevelActivation } from "@engram/retrieval";
import { apiClient, startTestServer, type TestServer } from "@engram/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reflectionContext } from "../../src/domain/reflection/context";
import { activationUpkeepProcess } from "../../src/domain/reflection/processes/activation-upkeep";
import { DEFAULT_REFLECTION_SETTINGS } from "../../src/domain/reflection/settings";

const DAY = 86_400_000;

describe("the activation upkeep process", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  async function tenant(environment: TEnvironment = "production", orgId?: string) {
    const org = orgId ?? (await server.newOrg());
    const api = apiClient(server.url, await server.newToken(org, { environment }));
    const encode = async (text: string) => {
      const res = await api.memory.encode({ body: { text } });
      if (res.status !== 201) throw new Error(`encode answered ${res.status}`);
      return res.body.memory.id;
    };
    const reinforce = async (id: string) => expect((await api.memory.reinforce({ params: { id }, body: {} })).status).toBe(200);
    const run = (at: Date) =>
      activationUpkeepProcess.run(
        reflectionContext(server.services.store, { scope: { orgId: org, environment }, runId: `rfr_${randomUUID()}`, settings: DEFAULT_REFLECTION_SETTINGS, clock: () => at }),
      );
    return { orgId: org, api, encode, reinforce, run };
  }

  /** Stored snapshots, and the activation computed here from the stored uses at `at`. */
  async function snapshots(ids: string[], at: Date) {
    const rows = await server.db.memory.findMany({ where: { id: { in: ids } } });
    return ids.map((id) => {
      const row = rows.find((r) => r.id === id)!;
      const uses = (JSON.parse(row.recentUses) as string[]).map((use) => new Date(use));
      const expected = baseLevelActivation({ recentUses: uses.length > 0 ? uses : [row.createdAt], totalUses: row.reinforcementCount + 1, firstUse: row.createdAt }, at);
      return { stored: row.activation, storedAt: row.activationAt, expected };
    });
  }

  it("stores each durable memory's base-level activation at the run's time, and a second run at that time changes nothing", async () => {
    const { encode, reinforce, run } = await tenant();
    const ids = [await encode("Activation one."), await encode("Activation two."), await encode("Activation three.")];
    await reinforce(ids[1]!);
    await reinforce(ids[1]!);
    const at = new Date(Date.now() + 2 * DAY);

    expect(await run(at)).toEqual({ examined: 3, actions: 3 });
    const first = await snapshots(ids, at);
    for (const { stored, storedAt, expected } of first) {
      expect(stored).toBeCloseTo(expected, 10);
      expect(storedAt).toEqual(at);
    }
    expect(first[1]!.stored!).toBeGreaterThan(first[0]!.stored!);

    expect(await run(at)).toEqual({ examined: 3, actions: 0 });
    expect(await snapshots(ids, at)).toEqual(first);
  });

  it("lowers the snapshots as time passes, and raises a memory's when it is reinforced", async () => {
    const { encode, reinforce, run } = await tenant();
    const ids = [await encode("Decay one."), await encode("Decay two.")];
    const soon = new Date(Date.now() + DAY);
    const later = new Date(soon.getTime() + 30 * DAY);
    await run(soon);
    const before = await snapshots(ids, soon);

    expect(await run(later)).toEqual({ examined: 2, actions: 2 });
    const after = await snapshots(ids, later);
    after.forEach(({ stored, expected }, i) => {
      expect(stored).toBeCloseTo(expected, 10);
      expect(stored!).toBeLessThan(before[i]!.stored!);
    });

    await reinforce(ids[0]!);
    expect(await run(later)).toEqual({ examined: 2, actions: 1 });
    const reinforced = await snapshots(ids, later);
    expect(reinforced[0]!.stored).toBeCloseTo(reinforced[0]!.expected, 10);
    expect(reinforced[0]!.stored!).toBeGreaterThan(after[0]!.stored!);
    expect(reinforced[1]).toEqual(after[1]);
  });

  it("leaves other organizations, environments and states alone, and writes no history or events", async () => {
    const production = await tenant("production");
    const testing = await tenant("test", production.orgId);
    const elsewhere = await tenant("production");
    const kept = await production.encode("Scoped activation.");
    const suppressed = await production.encode("Suppressed activation.");
    expect((await production.api.memory.suppress({ params: { id: suppressed }, body: {} })).status).toBe(200);
    const inTest = await testing.encode("Scoped activation.");
    const otherOrg = await elsewhere.encode("Scoped activation.");
    const history = await server.db.memoryHistory.count();

    expect(await production.run(new Date(Date.now() + DAY))).toEqual({ examined: 1, actions: 1 });
    const rows = await server.db.memory.findMany({ where: { id: { in: [kept, suppressed, inTest, otherOrg] } }, select: { id: true, activation: true } });
    expect(Object.fromEntries(rows.map((r) => [r.id, r.activation !== null]))).toEqual({ [kept]: true, [suppressed]: false, [inTest]: false, [otherOrg]: false });
    expect(await server.db.memoryHistory.count()).toBe(history);
    expect(await server.db.reflectionEvent.count({ where: { orgId: production.orgId } })).toBe(0);
  });

  it("counts the encode as a use for rows stored without use times", async () => {
    const { encode, run } = await tenant();
    const id = await encode("Stored before use times were kept.");
    await server.db.memory.update({ where: { id }, data: { recentUses: "[]" } });
    const at = new Date(Date.now() + DAY);
    expect(await run(at)).toEqual({ examined: 1, actions: 1 });
    const [snapshot] = await snapshots([id], at);
    expect(Number.isFinite(snapshot!.stored)).toBe(true);
    expect(snapshot!.stored).toBeCloseTo(snapshot!.expected, 10);
  });

  it("writes the snapshots of more memories than one page", async () => {
    const { orgId, run } = await tenant();
    const created = new Date(Date.now() - 10 * DAY);
    const count = 1_200;
    const ids = Array.from({ length: count }, () => `mem_${randomUUID().replaceAll("-", "")}`);
    await server.services.store.writeAtomically((batch) =>
      batch.insertMemories(
        ids.map((id, i) => ({
          id, orgId, environment: "production", agentSlug: null, text: `Paged activation ${i}.`, subject: null, memoryKind: "fact", confidence: 0.8,
          state: "durable", source: "api", sourceRequestId: null, sourceTokenId: null, sourceActor: null, idempotencyKey: null, eventId: null,
          createdAt: new Date(created.getTime() + i * 60_000),
        })),
        [],
      ),
    );
    const at = new Date();
    expect(await run(at)).toEqual({ examined: count, actions: count });
    const stored = await snapshots(ids, at);
    for (const { stored: value, expected } of stored) expect(value).toBeCloseTo(expected, 10);
    expect(await run(at)).toEqual({ examined: count, actions: 0 });
  });
});
