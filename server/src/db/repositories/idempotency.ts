import type { IdempotencyKeyScope, IdempotencyRepository, StoredResponse } from "../../domain/writes/ports";
import { newId } from "../../domain/kernel/ids";
import type { PrismaTx } from "../prisma";
import { Prisma } from "../generated/sqlite/client.ts";

/** The stored form of an answer under its key. */
export function idempotencyRow(scope: IdempotencyKeyScope, response: StoredResponse, now: Date, expiresAt: Date) {
  return {
    id: newId("idk"),
    ...scope,
    requestHash: response.requestHash,
    status: response.status,
    responseBody: JSON.stringify(response.body),
    createdAt: now,
    expiresAt,
  };
}

export function idempotencyRepository(db: PrismaTx): IdempotencyRepository {
  return {
    async findMany(scope, keys, now) {
      if (keys.length === 0) return [];
      // On the batched ingestion path: plain SQL, as the ORM's per-query cost dominates there.
      const rows = await db.$queryRaw<Array<{ key: string; requestHash: string; status: unknown; responseBody: string; expiresAt: Date }>>`
        SELECT "key", "requestHash", "status", "responseBody", "expiresAt" FROM "IdempotencyRecord"
        WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment} AND "route" = ${scope.route}
          AND "key" IN (${Prisma.join([...keys])})`;
      return rows.map((row) => ({
        key: row.key,
        requestHash: row.requestHash,
        status: Number(row.status),
        body: JSON.parse(row.responseBody),
        expired: new Date(row.expiresAt) <= now,
      }));
    },
    async deleteExpired(now) {
      const { count } = await db.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: now } } });
      return count;
    },
  };
}
