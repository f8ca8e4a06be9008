import { randomUUID } from "node:crypto";
import type { IdempotencyKeyScope, IdempotencyRepository } from "../../domain/ports";
import type { PrismaTx } from "../prisma";
import { DuplicateKeyError } from "../../domain/errors";
import { isUniqueViolation } from "../prisma";

function uniqueKey(scope: IdempotencyKeyScope) {
  return { orgId_environment_route_key: { orgId: scope.orgId, environment: scope.environment, route: scope.route, key: scope.key } };
}

export function idempotencyRepository(db: PrismaTx): IdempotencyRepository {
  return {
    async find(scope, now) {
      const row = await db.idempotencyRecord.findUnique({ where: uniqueKey(scope) });
      if (!row || row.expiresAt <= now) return null;
      return { requestHash: row.requestHash, status: row.status, body: JSON.parse(row.responseBody) };
    },
    async save(scope, response, now, expiresAt) {
      // A key whose record expired may be used afresh.
      await db.idempotencyRecord.deleteMany({ where: { ...uniqueKey(scope).orgId_environment_route_key, expiresAt: { lte: now } } });
      try {
        await db.idempotencyRecord.create({
          data: {
            id: `idk_${randomUUID().replaceAll("-", "")}`,
            ...scope,
            requestHash: response.requestHash,
            status: response.status,
            responseBody: JSON.stringify(response.body),
            createdAt: now,
            expiresAt,
          },
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new DuplicateKeyError("idempotency key");
        throw error;
      }
    },
    async deleteExpired(now) {
      const { count } = await db.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: now } } });
      return count;
    },
  };
}
