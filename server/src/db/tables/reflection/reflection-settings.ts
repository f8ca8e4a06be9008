import type { ReflectionSettingsRepository } from "../../../domain/reflection/ports";
import type { PrismaTx } from "../../prisma";

export function reflectionSettingsRepository(db: PrismaTx): ReflectionSettingsRepository {
  return {
    async find(orgId) {
      const row = await db.reflectionSettings.findUnique({ where: { orgId } });
      return row ? { settings: JSON.parse(row.settings) as unknown, version: row.version, updatedAt: row.updatedAt, updatedBy: row.updatedBy } : null;
    },
    async save(orgId, settings, expected, at, by) {
      const text = JSON.stringify(settings);
      if (expected === 0) {
        // The first save creates the row; a concurrent first save makes this insert do nothing.
        const inserted = await db.$executeRaw`
          INSERT INTO "ReflectionSettings" ("orgId", "settings", "version", "updatedAt", "updatedBy")
          VALUES (${orgId}, ${text}, 1, ${at}, ${by}) ON CONFLICT ("orgId") DO NOTHING`;
        return inserted === 1;
      }
      const { count } = await db.reflectionSettings.updateMany({ where: { orgId, version: expected }, data: { settings: text, version: expected + 1, updatedAt: at, updatedBy: by } });
      return count === 1;
    },
  };
}
