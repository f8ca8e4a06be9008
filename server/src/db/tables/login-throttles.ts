import type { LoginThrottleRepository } from "../../domain/people/ports";
import type { Dialect } from "../dialect";
import type { PrismaTx } from "../prisma";
import { sql } from "../sql";

export function loginThrottleRepository(db: PrismaTx, dialect: Dialect): LoginThrottleRepository {
  return {
    async recordFailure(keys, windowStart) {
      const counts: number[] = [];
      for (const key of keys) {
        // One atomic statement per key: concurrent failures from several processes are all counted.
        const [row] = await db.$queryRaw<Array<{ failures: unknown }>>`
          INSERT INTO "LoginThrottle" ("key", "windowStart", "failures") VALUES (${key}, ${windowStart}, 1)
          ON CONFLICT ("key", "windowStart") DO UPDATE SET "failures" = "LoginThrottle"."failures" + 1
          RETURNING "failures"`;
        counts.push(Number(row!.failures));
      }
      return counts;
    },
    async forgive(keys, windowStart) {
      await db.loginThrottle.updateMany({ where: { key: { in: [...keys] }, windowStart, failures: { gt: 0 } }, data: { failures: { decrement: 1 } } });
    },
    deleteBefore: (windowStart, limit) => db.$executeRaw(dialect.deleteSome("LoginThrottle", sql`"windowStart" < ${windowStart}`, limit)),
  };
}
