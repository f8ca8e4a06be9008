import type { DailyUsageRepository } from "../../../domain/reflection/metrics/ports";
import type { PrismaTx } from "../../prisma";
import { join, sql } from "../../sql";

export function dailyUsageRepository(db: PrismaTx): DailyUsageRepository {
  return {
    async add(increments) {
      if (increments.length === 0) return;
      const values = increments.map((row) => sql`(${row.orgId}, ${row.environment}, ${row.day}, ${row.metric}, ${row.count})`);
      // Additive, so several server processes flushing the same day's counter each add their share.
      await db.$executeRaw`
        INSERT INTO "DailyUsage" ("orgId", "environment", "day", "metric", "count") VALUES ${join(values)}
        ON CONFLICT ("orgId", "environment", "day", "metric") DO UPDATE SET "count" = "DailyUsage"."count" + excluded."count"`;
    },
    async byDay(scope, metric, fromDay, toDay) {
      const rows = await db.dailyUsage.findMany({
        where: { orgId: scope.orgId, environment: scope.environment, metric, day: { gte: fromDay, lte: toDay } },
        select: { day: true, count: true },
      });
      return rows.map((row) => ({ day: row.day, key: metric, count: row.count }));
    },
  };
}
