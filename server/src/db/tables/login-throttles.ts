import type { LoginThrottleRepository } from "../../domain/people/ports";
import type { PrismaTx } from "../prisma";

export function loginThrottleRepository(db: PrismaTx): LoginThrottleRepository {
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
    async deleteBefore(windowStart) {
      const { count } = await db.loginThrottle.deleteMany({ where: { windowStart: { lt: windowStart } } });
      return count;
    },
  };
}
