import type { RateLimitRepository } from "../../domain/rate-limits/ports";
import type { Dialect } from "../dialect";
import type { PrismaTx } from "../prisma";
import { sql } from "../sql";

export function rateLimitRepository(db: PrismaTx, dialect: Dialect): RateLimitRepository {
  return {
    async add(key, windowStart, amount) {
      // One atomic statement on both providers: concurrent processes each see the total their own addition made.
      const [row] = await db.$queryRaw<Array<{ count: unknown }>>`
        INSERT INTO "RateLimitCounter" ("orgId", "environment", "routeGroup", "windowStart", "count")
        VALUES (${key.orgId}, ${key.environment}, ${key.routeGroup}, ${windowStart}, ${amount})
        ON CONFLICT ("orgId", "environment", "routeGroup", "windowStart")
        DO UPDATE SET "count" = "RateLimitCounter"."count" + excluded."count"
        RETURNING "count"`;
      return Number(row!.count);
    },
    deleteBefore: (windowStart, limit) => db.$executeRaw(dialect.deleteSome("RateLimitCounter", sql`"windowStart" < ${windowStart}`, limit)),
  };
}
