import { randomUUID } from "node:crypto";
import { apiClient, databaseUnderTest, startTestServer, type TestServer } from "@engram/test-support";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
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
  const connections: pg.Client[] = [];
  afterEach(async () => {
    for (const client of connections.splice(0)) await client.end().catch(() => undefined);
  });

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
   * Another writer's transaction on a connection of its own, which gives up on a circular wait after 10 ms (the
   * server's connections after a second), so a circle fails this writer's statement, which the test sees.
   */
  async function otherWriter() {
    const client = new pg.Client({ connectionString: server.database.provider === "postgres" ? server.database.url : "" });
    connections.push(client);
    await client.connect();
    const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    await client.query("SET deadlock_timeout = '10ms'");
    await client.query("BEGIN");
    return {
      query: (text: string, values: unknown[]) => client.query(text, values),
      commit: () => client.query("COMMIT"),
      /** Resolves once another backend waits for this writer's locks: reflection has reached them. */
      async waitedFor() {
        const deadline = Date.now() + 20_000;
        while (Date.now() < deadline) {
          const [row] = await server.db.$queryRawUnsafe<Array<{ waiting: bigint }>>(
            `SELECT count(*) AS "waiting" FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`,
            rows[0]!.pid,
          );
          if (row!.waiting > 0n) return;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        throw new Error("reflection never waited for the other writer");
      },
    };
  }

  /** A person's reinforcement, held between its two statements: the memory's row locked, its ranking change not yet made. */
  async function personReinforcing(memoryId: string) {
    const person = await otherWriter();
    await person.query(`UPDATE "Memory" SET "updatedAt" = now() WHERE "id" = $1`, [memoryId]);
    return {
      waitedFor: person.waitedFor,
      async finish() {
        await person.query(`UPDATE "Memory" SET "reinforcementCount" = "reinforcementCount" + 1 WHERE "id" = $1`, [memoryId]);
        await person.commit();
      },
    };
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
    await person.waitedFor();
    await person.finish();
    expect(await applied).toBe(2);
    expect(await reinforcements(second)).toBe(1);
  });

  it("a page's changes let the vectors of the memories they lock be saved meanwhile", async () => {
    const { encode, context } = await tenant();
    const [first, second] = [await encode("The ledger service rotates its signing keys."), await encode("The billing worker drains its queue.")];
    // The embeddings writer saves one vector (its foreign key checked on the memory's row; the scope's collection
    // row taken by the trigger) and holds its transaction open before the next.
    const writer = await otherWriter();
    const saveVector = (memoryId: string) =>
      writer.query(
        `INSERT INTO "MemoryEmbedding" ("memoryId", "orgId", "environment", "model", "vector", "createdAt")
         SELECT "id", "orgId", "environment", 'test-model', '\\x0000803f'::bytea, now() FROM "Memory" WHERE "id" = $1`,
        [memoryId],
      );
    await saveVector(first);
    const ctx = context();
    const applied = applyChanges(ctx, [
      flagChange(ctx, { memoryId: second, process: "contradictions", action: "superseded", reason: "a test lowers it", state: "durable", set: { confidence: 0.3 } }, new Date()),
    ]);
    await writer.waitedFor();
    await saveVector(second);
    await writer.commit();
    expect(await applied).toBe(1);
    expect(await server.db.memoryEmbedding.count({ where: { memoryId: { in: [first, second] } } })).toBe(2);
  });

  it("a merge waits for a person's reinforcement of its survivor instead of deadlocking with it", async () => {
    const { encode, context } = await tenant();
    const survivor = await encode("Payments API deploys go out on Tuesdays after the change advisory board approves them.");
    const duplicate = await encode("Payments API deploys go out on Tuesdays after the change advisory board approves them!");
    const person = await personReinforcing(survivor);
    const run = duplicatesProcess.run(context());
    await person.waitedFor();
    await person.finish();
    expect((await run).actions).toBe(2);
    expect(await reinforcements(survivor)).toBe(2);
    expect((await server.db.memory.findUniqueOrThrow({ where: { id: duplicate } })).state).toBe("suppressed");
  });
});
