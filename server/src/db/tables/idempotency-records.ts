import { newId } from "../../domain/kernel/ids";
import type { IdempotencyKeyScope, IdempotencyRepository, KeyClaim } from "../../domain/writes/ports";
import type { Dialect } from "../dialect";
import type { PrismaTx } from "../prisma";
import { join, type Row, type Sql, sql, type Table } from "../sql";
import { prismaReads, type SqlReads } from "../sql-reads";

const IDEMPOTENCY_COLUMNS = ["id", "orgId", "environment", "route", "key", "requestHash", "status", "responseBody", "createdAt", "expiresAt"] as const;
type IdempotencyColumn = (typeof IDEMPOTENCY_COLUMNS)[number];

/** A key already taken fails the insert, and with it the batch (DuplicateKeyError). */
export const idempotencyRecordTable: Table<IdempotencyColumn> = { name: "IdempotencyRecord", columns: IDEMPOTENCY_COLUMNS, references: [] };

/** The stored form of each answer under its key. */
export function idempotencyRows(claims: readonly KeyClaim[], now: Date, expiresAt: Date): Row<IdempotencyColumn>[] {
  return claims.map(({ scope, response }) => ({
    id: newId("idk"),
    ...scope,
    requestHash: response.requestHash,
    status: response.status,
    responseBody: JSON.stringify(response.body),
    createdAt: now,
    expiresAt,
  }));
}

/** Removes the named keys' expired records, so that the same batch can claim them afresh. */
export function deleteExpiredKeys(scope: Omit<IdempotencyKeyScope, "key">, keys: readonly string[], now: Date): Sql {
  return sql`DELETE FROM "IdempotencyRecord" WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment}
    AND "route" = ${scope.route} AND "key" IN (${join([...keys])}) AND "expiresAt" <= ${now}`;
}

/** `reads` serves the key lookup of every keyed write (outside a transaction: the driver's own statements). */
export function idempotencyRepository(db: PrismaTx, dialect: Dialect, reads: SqlReads = prismaReads(db)): IdempotencyRepository {
  return {
    async findMany(scope, keys, now) {
      if (keys.length === 0) return [];
      // On the batched ingestion path: plain SQL, as the ORM's per-query cost dominates there.
      const rows = await reads.rows<{ key: string; requestHash: string; status: unknown; responseBody: string; expiresAt: Date | string }>(sql`
        SELECT "key", "requestHash", "status", "responseBody", "expiresAt" FROM "IdempotencyRecord"
        WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment} AND "route" = ${scope.route}
          AND "key" IN (${join([...keys])})`);
      return rows.map((row) => ({
        key: row.key,
        requestHash: row.requestHash,
        status: Number(row.status),
        body: JSON.parse(row.responseBody),
        expired: new Date(row.expiresAt) <= now,
      }));
    },
    deleteExpired: (now, limit) => db.$executeRaw(dialect.deleteSome("IdempotencyRecord", sql`"expiresAt" <= ${now}`, limit)),
  };
}
