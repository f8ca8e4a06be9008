import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, startTestServer, type TestServer } from "@engram/test-support";
import { postgresPool } from "../src/db/prisma";
import { limitOf, raw, sql } from "../src/db/sql";
import { postgresReads, type SqlReads, sqliteReads } from "../src/db/sql-reads";
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
    const pool = postgresPool(database);
    reads = postgresReads(pool);
    close = () => pool.end();
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

  it("write a limit into the statement only as a whole number of rows", async () => {
    const rows = await reads.rows<{ n: number | string }>(sql`SELECT n FROM (SELECT 1 AS n UNION ALL SELECT 2 UNION ALL SELECT 3) AS t ORDER BY n ${limitOf(2)}`);
    expect(rows.map((row) => Number(row.n))).toEqual([1, 2]);
    for (const count of [-1, 1.5, Number.NaN, Infinity, 2 ** 53]) expect(() => limitOf(count)).toThrow(RangeError);
  });
});
