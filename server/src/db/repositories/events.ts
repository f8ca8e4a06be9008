import type { TEnvironment } from "@engram/contract";
import type { EventRepository } from "../../domain/ports";
import type { BusinessEventRecord, KeySource } from "../../domain/records";
import type { PrismaTx } from "../prisma";

export function eventRepository(db: PrismaTx): EventRepository {
  return {
    async find(id) {
      const row = await db.businessEvent.findUnique({ where: { id } });
      if (!row) return null;
      return {
        ...row,
        environment: row.environment as TEnvironment,
        keySource: row.keySource as KeySource,
        metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
      } satisfies BusinessEventRecord;
    },
    async countByType(orgId) {
      const groups = await db.businessEvent.groupBy({
        by: ["environment", "type", "triageRule"],
        where: { orgId },
        _count: { _all: true },
        orderBy: [{ environment: "asc" }, { type: "asc" }],
      });
      return groups.map((group) => ({
        environment: group.environment as TEnvironment,
        type: group.type,
        known: group.triageRule !== null,
        count: group._count._all,
      }));
    },
  };
}
