import type { LoginThrottleRepository } from "../../domain/people/ports";
import type { Dialect } from "../dialect";
import type { PrismaTx } from "../prisma";
import { sql } from "../sql";

export function loginThrottleRepository(db: PrismaTx, dialect: Dialect): LoginThrottleRepository {
  return {
    async claim(key, windowStart, limit) {
      // One atomic statement: concurrent claims from several processes never take more than the room left.
      const [row] = await db.$queryRaw<Array<{ failures: unknown }>>`
        INSERT INTO "LoginThrottle" ("key", "windowStart", "failures", "pending") VALUES (${key}, ${windowStart}, 0, 1)
        ON CONFLICT ("key", "windowStart") DO UPDATE SET "pending" = "LoginThrottle"."pending" + 1
          WHERE "LoginThrottle"."failures" + "LoginThrottle"."pending" < ${limit}
        RETURNING "failures"`;
      if (row) return { claimed: true, failures: Number(row.failures) };
      const window = await db.loginThrottle.findUnique({ where: { key_windowStart: { key, windowStart } }, select: { failures: true } });
      return { claimed: false, failures: window?.failures ?? 0 };
    },
    async settle(keys, windowStart, failed) {
      await db.loginThrottle.updateMany({
        where: { key: { in: [...keys] }, windowStart, pending: { gt: 0 } },
        data: { pending: { decrement: 1 }, failures: { increment: failed ? 1 : 0 } },
      });
    },
    deleteBefore: (windowStart, limit) => db.$executeRaw(dialect.deleteSome("LoginThrottle", sql`"windowStart" < ${windowStart}`, limit)),
  };
}
