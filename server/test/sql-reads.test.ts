import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, databaseUnderTest, startTestServer, type TestServer } from "@engram/test-support";
import { postgresPool } from "../src/db/prisma";
import { raw, sql } from "../src/db/sql";
import { PLAN_ONCE, postgresReads, type SqlReads, sqliteReads } from "../src/db/sql-reads";
import { openSqliteConnection } from "../src/db/sqlite-connection";

/**
 * Retrieval's hot reads run on the driver, beside Prisma: they must read what Prisma wrote, timestamps
 * included, as soon as it is committed, whatever the process's time zone.
 */
let server: TestServer;
let reads: SqlReads;
let close: () => Promise<void>;
beforeAll(async () => {
  server = await startTestServer();
  const { database } = server;
  if (database.provider === "postgres") {
    // As the store opens them: statements planned for their values, and those planned once on their own pool.
    const pool = postgresPool(database);
    const plannedOnce = postgresPool(database, "once");
    reads = postgresReads(pool, plannedOnce);
    close = async () => void (await Promise.all([pool.end(), plannedOnce.end()]));
  } else {
    const sqlite = openSqliteConnection(database.file);
    reads = sqliteReads(sqlite);
    close = async () => sqlite.close();
  }
});
afterAll(async () => {
  await close?.();
  await server?.stop();
});

describe("reads on the driver", () => {
  it("see a committed write at once, and bind and read timestamps as the instants Prisma stored", async () => {
    const zone = process.env.TZ;
    // A zone far from UTC, on both sides of the write: a local-time conversion anywhere would move the instant.
    process.env.TZ = "Asia/Kathmandu";
    try {
      const { token } = await server.newTenant();
      const res = await apiClient(server.url, token).memory.encode({ body: { text: "Timestamps stay in UTC." } });
      if (res.status !== 201) throw new Error(`encode answered ${res.status}`);
      const { id } = res.body.memory;
      const stored = await server.db.memory.findUniqueOrThrow({ where: { id } });
      const rows = await reads.rows<{ id: string; createdAt: Date | string }>(sql`SELECT m."id", m."createdAt" FROM "Memory" m WHERE m."createdAt" = ${stored.createdAt} AND m."id" = ${id}`);
      expect(rows.map((row) => row.id)).toEqual([id]);
      expect(new Date(rows[0]!.createdAt).getTime()).toBe(stored.createdAt.getTime());
      expect(stored.createdAt.toISOString()).toBe(res.body.memory.createdAt);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it.runIf(databaseUnderTest === "postgres")("plans a statement for its values every time unless it is marked to be planned once", async () => {
    const mode = async (options?: typeof PLAN_ONCE) =>
      (await reads.rows<{ mode: string }>(sql`SELECT current_setting('plan_cache_mode') AS "mode"`, options))[0]!.mode;
    expect(await mode()).toBe("force_custom_plan");
    expect(await mode(PLAN_ONCE)).toBe("force_generic_plan");
    // Planned once, a statement answers for each value as planned for it would.
    const { orgId } = await server.newTenant();
    for (const id of [orgId, "org_missing"]) {
      const statement = sql`SELECT "id" FROM "Organization" WHERE "id" = ${id}`;
      expect(await reads.rows(statement, PLAN_ONCE)).toEqual(await reads.rows(statement));
    }
  });

  it("keeps answering past the number of statements it prepares", async () => {
    const answers: number[] = [];
    for (let i = 0; i < 520; i++) {
      const [row] = await reads.rows<{ n: number | string }>(sql`SELECT ${raw(String(i))} + ${1} AS n`);
      answers.push(Number(row!.n));
    }
    expect(answers).toEqual(Array.from({ length: 520 }, (_, i) => i + 1));
    // A statement prepared before gives its own answer again, with new values.
    const [again] = await reads.rows<{ n: number | string }>(sql`SELECT ${raw("7")} + ${100} AS n`);
    expect(Number(again!.n)).toBe(107);
  });
});
