import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseUnderTest, freshDatabase } from "@engram/test-support";
import { writeBatchOver } from "../src/db/batch-writes";
import type { DatabaseConfig } from "../src/db/config";
import { postgresPool, postgresWritePool, WRITES_APPLICATION_NAME } from "../src/db/prisma";
import { openStore } from "../src/db/store";
import { postgresTransaction, writeUnitOfWork } from "../src/db/write-batch";
import { DuplicateKeyError } from "../src/domain/kernel/errors";
import type { Store } from "../src/domain/store";
import type { KeyClaim } from "../src/domain/writes/ports";

/**
 * The group commit runs on the drivers themselves (one statement on Postgres, an IMMEDIATE transaction on
 * SQLite): all of a batch or none of it, and a key already taken is the documented DuplicateKeyError, which
 * the idempotent writers turn into a replay.
 */
let database: DatabaseConfig;
let store: Store;
beforeAll(async () => {
  database = await freshDatabase();
  store = await openStore(database);
});
afterAll(() => store?.close());

const scope = { orgId: "org_batch", environment: "production" as const, route: "memory.encode" };
const claim = (key: string): KeyClaim => ({ scope: { ...scope, key }, response: { requestHash: `hash-${key}`, status: 201, body: { key } } });
const now = new Date("2026-11-23T12:00:00.000Z");
const expires = new Date("2026-11-24T12:00:00.000Z");
const stored = async (...keys: string[]) => (await store.idempotency.findMany(scope, keys, now)).map((record) => record.key).sort();

describe("a batch write", () => {
  it("stores every row of a batch", async () => {
    await store.writeAtomically((batch) => batch.claimKeys([claim("a"), claim("b")], now, expires));
    expect(await stored("a", "b")).toEqual(["a", "b"]);
    const [a] = await store.idempotency.findMany(scope, ["a"], now);
    expect(a).toMatchObject({ requestHash: "hash-a", status: 201, body: { key: "a" }, expired: false });
  });

  it("fails whole with DuplicateKeyError when one of its keys is taken, storing none of its rows", async () => {
    const taken = store.writeAtomically((batch) => batch.claimKeys([claim("c"), claim("a"), claim("d")], now, expires));
    await expect(taken).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(await stored("c", "d")).toEqual([]);
    // The connection is usable at once: the next batch is stored.
    await store.writeAtomically((batch) => batch.claimKeys([claim("c")], now, expires));
    expect(await stored("c", "d")).toEqual(["c"]);
  });

  it("claims an expired key again in one batch, its old record removed first", async () => {
    const later = new Date("2026-11-25T12:00:00.000Z");
    expect((await store.idempotency.findMany(scope, ["b"], later))[0]?.expired).toBe(true);
    await store.writeAtomically((batch) => {
      batch.deleteExpiredKeys(scope, ["b"], later);
      batch.claimKeys([{ ...claim("b"), response: { requestHash: "hash-b2", status: 201, body: { key: "b2" } } }], later, new Date("2026-11-26T12:00:00.000Z"));
    });
    expect(await store.idempotency.findMany(scope, ["b"], later)).toMatchObject([{ key: "b", requestHash: "hash-b2", expired: false }]);
  });
});

describe.runIf(databaseUnderTest === "postgres")("a batch write on Postgres", () => {
  const postgres = () => database as Extract<DatabaseConfig, { provider: "postgres" }>;

  it("runs on the store's connections for writes, which name themselves to Postgres", async () => {
    await store.writeAtomically((batch) => batch.claimKeys([claim("named")], now, expires));
    const admin = new pg.Client({ connectionString: postgres().url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ query: string }>(
        "SELECT query FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1",
        [WRITES_APPLICATION_NAME],
      );
      expect(rows.map((row) => row.query)).toEqual([expect.stringContaining('INSERT INTO "IdempotencyRecord"')]);
    } finally {
      await admin.end();
    }
  });

  it("is planned once on those connections when it recurs, where the store's other connections plan every call", async () => {
    const plans = async (pool: pg.Pool, prefix: string) => {
      const run = postgresTransaction(pool);
      // One at a time, so the pool keeps one connection and every run prepares on it.
      for (let i = 0; i < 8; i++) await writeUnitOfWork(run, (unit) => writeBatchOver(unit).claimKeys([claim(`${prefix}-${i}`)], now, expires));
      const { rows } = await pool.query<{ generic: string; custom: string }>(
        `SELECT generic_plans AS generic, custom_plans AS custom FROM pg_prepared_statements WHERE statement LIKE 'INSERT INTO "IdempotencyRecord"%'`,
      );
      await pool.end();
      return rows.map((row) => ({ generic: Number(row.generic), custom: Number(row.custom) }));
    };
    const [writes] = await plans(postgresWritePool(postgres()), "writes");
    expect(writes!.generic).toBeGreaterThan(0);
    expect(writes!.generic + writes!.custom).toBe(8);
    expect(await plans(postgresPool(postgres()), "reads")).toEqual([{ generic: 0, custom: 8 }]);
  });
});
