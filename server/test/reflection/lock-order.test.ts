import { randomUUID } from "node:crypto";
import { apiClient, databaseUnderTest, startTestServer, type TestServer } from "@engram/test-support";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reflectionContext } from "../../src/domain/reflection/context";
import { duplicatesProcess } from "../../src/domain/reflection/processes/duplicates";
import { applyChanges, flagChange } from "../../src/domain/reflection/processes/scope-pages";
import { DEFAULT_REFLECTION_SETTINGS } from "../../src/domain/reflection/settings";

/**
 * A person's change to a memory locks its row, then (through the collection triggers) its scope's collection row.
 * Reflection's transactions change many memories: they take every memory row they will change before any change
 * takes the collection row, so the two never wait for each other in a circle. (SQLite has one writer at a time.)
 */
describe.runIf(databaseUnderTest === "postgres")("reflection's lock order on Postgres", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  async function tenant() {
    const orgId = await server.newOrg();
    const api = apiClient(server.url, await server.newToken(orgId));
    const encode = async (text: string) => {
      const res = await api.memory.encode({ body: { text } });
      if (res.status !== 201) throw new Error(`encode answered ${res.status}`);
      return res.body.memory.id;
    };
    const context = () =>
      reflectionContext(server.services.store, { scope: { orgId, environment: "production" }, runId: `rfr_${randomUUID()}`, settings: DEFAULT_REFLECTION_SETTINGS, clock: () => new Date() });
    return { encode, context };
  }

  /**
   * A person's reinforcement, held between its two statements: the memory's row locked, its ranking change not
   * yet made. Its connection gives up on a circular wait after 10 ms (the server's after a second), so a circle
   * fails the person's change, which the test sees.
   */
  async function personReinforcing(memoryId: string) {
    const client = new pg.Client({ connectionString: server.database.provider === "postgres" ? server.database.url : "" });
    await client.connect();
    await client.query("SET deadlock_timeout = '10ms'");
    await client.query("BEGIN");
    await client.query(`UPDATE "Memory" SET "updatedAt" = now() WHERE "id" = $1`, [memoryId]);
    return {
      async finish() {
        try {
          await client.query(`UPDATE "Memory" SET "reinforcementCount" = "reinforcementCount" + 1 WHERE "id" = $1`, [memoryId]);
          await client.query("COMMIT");
        } finally {
          await client.end();
        }
      },
    };
  }

  /** Resolves once some backend waits for a lock: reflection has reached the person's row. */
  async function someoneWaits() {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const [row] = await server.db.$queryRawUnsafe<Array<{ waiting: bigint }>>(`SELECT count(*) AS "waiting" FROM pg_locks WHERE NOT granted`);
      if (row!.waiting > 0n) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error("nobody waited for a lock");
  }

  const reinforcements = async (id: string) => (await server.db.memory.findUniqueOrThrow({ where: { id } })).reinforcementCount;

  it("a page's changes wait for a person's change to a later memory instead of deadlocking with it", async () => {
    const { encode, context } = await tenant();
    const first = await encode("The ledger service rotates its signing keys every ninety days.");
    const second = await encode("The billing worker drains its queue before each deploy.");
    const person = await personReinforcing(second);
    const ctx = context();
    // Each lowers a memory's confidence: a ranking change, which takes the scope's collection row.
    const changes = [first, second].map((memoryId) =>
      flagChange(ctx, { memoryId, process: "contradictions", action: "superseded", reason: "a test lowers it", state: "durable", set: { confidence: 0.3 } }, new Date()),
    );
    const applied = applyChanges(ctx, changes);
    await someoneWaits();
    await person.finish();
    expect(await applied).toBe(2);
    expect(await reinforcements(second)).toBe(1);
  });

  it("a merge waits for a person's reinforcement of its survivor instead of deadlocking with it", async () => {
    const { encode, context } = await tenant();
    const survivor = await encode("Payments API deploys go out on Tuesdays after the change advisory board approves them.");
    const duplicate = await encode("Payments API deploys go out on Tuesdays after the change advisory board approves them!");
    const person = await personReinforcing(survivor);
    const run = duplicatesProcess.run(context());
    await someoneWaits();
    await person.finish();
    expect((await run).actions).toBe(2);
    expect(await reinforcements(survivor)).toBe(2);
    expect((await server.db.memory.findUniqueOrThrow({ where: { id: duplicate } })).state).toBe("suppressed");
  });
});
