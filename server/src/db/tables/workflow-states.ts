import type { TEnvironment } from "@engram/contract";
import type { WorkflowRepository } from "../../domain/events/ports";
import type { WorkflowStateRecord } from "../../domain/events/records";
import { newId } from "../../domain/kernel/ids";
import type { PrismaTx } from "../prisma";
import { join, type Row, sql, type Table } from "../sql";
import { prismaReads, type SqlReads } from "../sql-reads";
import { organizationTable } from "./organizations";

const WORKFLOW_COLUMNS = ["id", "orgId", "environment", "workflow", "subject", "track", "state", "details", "lastEventId", "createdAt", "updatedAt"] as const;
type WorkflowColumn = (typeof WORKFLOW_COLUMNS)[number];

/** One row per workflow, subject and track: a batch replaces it. On conflict only the moving parts change; the row keeps its id and createdAt. */
export const workflowStateTable: Table<WorkflowColumn> = {
  name: "WorkflowState",
  columns: WORKFLOW_COLUMNS,
  references: [organizationTable],
  onConflict: `ON CONFLICT ("orgId", "environment", "workflow", "subject", "track") DO UPDATE SET "state" = excluded."state",
      "details" = excluded."details", "lastEventId" = excluded."lastEventId", "updatedAt" = excluded."updatedAt"`,
};

export function workflowStateRows(states: readonly WorkflowStateRecord[]): Row<WorkflowColumn>[] {
  return states.map((state) => ({ ...state, id: newId("wfs"), details: JSON.stringify(state.details), createdAt: state.updatedAt }));
}

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

/** `reads` serves the state lookup of every event batch (outside a transaction: the driver's own statements). */
export function workflowRepository(db: PrismaTx, reads: SqlReads = prismaReads(db)): WorkflowRepository {
  return {
    async findMany(keys) {
      if (keys.length === 0) return [];
      // On the batched ingestion path: one plain SQL read on the driver for the whole batch.
      const matches = keys.map(
        (key) =>
          sql`("orgId" = ${key.orgId} AND "environment" = ${key.environment} AND "workflow" = ${key.workflow} AND "subject" = ${key.subject} AND "track" = ${key.track})`,
      );
      const rows = await reads.rows<WorkflowRow>(sql`SELECT * FROM "WorkflowState" WHERE ${join(matches, " OR ")}`);
      return rows.map((row) => toRecord({ ...row, updatedAt: new Date(row.updatedAt) }));
    },
    async list(orgId, environment) {
      const rows = await db.workflowState.findMany({ where: { orgId, environment }, orderBy: [{ workflow: "asc" }, { subject: "asc" }, { track: "asc" }] });
      return rows.map(toRecord);
    },
    async listRecent(orgId, environment, { workflow, limit }) {
      const rows = await db.workflowState.findMany({
        where: { orgId, environment, ...(workflow ? { workflow } : {}) },
        orderBy: [{ updatedAt: "desc" }, { workflow: "asc" }, { subject: "asc" }, { track: "asc" }],
        take: limit,
      });
      return rows.map(toRecord);
    },
  };
}
