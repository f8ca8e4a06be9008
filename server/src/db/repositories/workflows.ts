import type { TEnvironment } from "@engram/contract";
import type { WorkflowRepository } from "../../domain/events/ports";
import type { WorkflowStateRecord } from "../../domain/events/records";
import { Prisma } from "../generated/sqlite/client.ts";
import type { PrismaTx } from "../prisma";

type WorkflowRow = Awaited<ReturnType<PrismaTx["workflowState"]["findUniqueOrThrow"]>>;

function toRecord(row: WorkflowRow): WorkflowStateRecord {
  return {
    orgId: row.orgId,
    environment: row.environment as TEnvironment,
    workflow: row.workflow,
    subject: row.subject,
    track: row.track,
    state: row.state,
    details: JSON.parse(row.details) as Record<string, unknown>,
    lastEventId: row.lastEventId,
    updatedAt: row.updatedAt,
  };
}

export function workflowRepository(db: PrismaTx): WorkflowRepository {
  return {
    async findMany(keys) {
      if (keys.length === 0) return [];
      // On the batched ingestion path: one plain SQL read for the whole batch.
      const matches = keys.map(
        (key) =>
          Prisma.sql`("orgId" = ${key.orgId} AND "environment" = ${key.environment} AND "workflow" = ${key.workflow} AND "subject" = ${key.subject} AND "track" = ${key.track})`,
      );
      const rows = await db.$queryRaw<WorkflowRow[]>`SELECT * FROM "WorkflowState" WHERE ${Prisma.join(matches, " OR ")}`;
      return rows.map((row) => toRecord({ ...row, updatedAt: new Date(row.updatedAt) }));
    },
    async list(orgId, environment) {
      const rows = await db.workflowState.findMany({ where: { orgId, environment }, orderBy: [{ workflow: "asc" }, { subject: "asc" }, { track: "asc" }] });
      return rows.map(toRecord);
    },
  };
}
