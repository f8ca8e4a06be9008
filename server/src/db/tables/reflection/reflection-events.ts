import type { TEnvironment, TReflectionAction, TReflectionProcess } from "@engram/contract";
import type { ReflectionEventRepository } from "../../../domain/reflection/ports";
import type { PrismaTx } from "../../prisma";
import { rowsPast } from "../../page-where";
import type { Table } from "../../sql";
import { organizationTable } from "../organizations";

const EVENT_COLUMNS = ["id", "orgId", "environment", "runId", "process", "action", "memoryId", "relatedId", "reason", "details", "createdAt"] as const;

/** Reflection's events, written with raw inserts: a Prisma create costs about twice the statement. */
export const reflectionEventTable: Table<(typeof EVENT_COLUMNS)[number]> = { name: "ReflectionEvent", columns: EVENT_COLUMNS, references: [organizationTable] };

export function reflectionEventRepository(db: PrismaTx): ReflectionEventRepository {
  return {
    async list(scope, filter, before, limit) {
      const rows = await db.reflectionEvent.findMany({
        where: {
          orgId: scope.orgId,
          environment: scope.environment,
          ...(filter.process ? { process: filter.process } : {}),
          ...(filter.action ? { action: filter.action } : {}),
          ...(filter.from || filter.to ? { createdAt: { ...(filter.from ? { gte: filter.from } : {}), ...(filter.to ? { lt: filter.to } : {}) } } : {}),
          AND: [rowsPast(before, "desc")],
        },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: limit,
      });
      return rows.map((row) => ({
        ...row,
        environment: row.environment as TEnvironment,
        process: row.process as TReflectionProcess,
        action: row.action as TReflectionAction,
        details: row.details === null ? null : (JSON.parse(row.details) as Record<string, unknown>),
      }));
    },
  };
}
