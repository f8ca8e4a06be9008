import type { TEnvironment } from "@engram/contract";
import type { WorkflowKey, WorkflowRepository } from "../../domain/events/ports";
import type { WorkflowStateRecord } from "../../domain/events/records";
import { newId } from "../../domain/kernel/ids";
import type { PrismaTx } from "../prisma";
import { join, type Row, type Sql, sql, type Table } from "../sql";
import { prismaReads, type SqlReads } from "../sql-reads";
import { organizationTable } from "./organizations";

const WORKFLOW_COLUMNS = ["id", "orgId", "environment", "workflow", "subject", "track", "state", "details", "lastEventId", "createdAt", "updatedAt"] as const;
type WorkflowColumn = (typeof WORKFLOW_COLUMNS)[number];

/**
 * One row per workflow, subject and track. A move is a compare-and-set in two statements of the batch's
 * transaction: the row is deleted only if it still holds the state the move was decided from (its lastEventId),
 * and the new row inserted without ON CONFLICT, so a row that another process moved meanwhile (or inserted,
 * for a workflow none had stored) is still there and fails the insert on the key: the batch rolls back and is
 * decided again from the state that process left.
 */
export const workflowStateTable: Table<WorkflowColumn> = { name: "WorkflowState", columns: WORKFLOW_COLUMNS, references: [organizationTable] };

export function workflowStateRows(states: readonly WorkflowStateRecord[]): Row<WorkflowColumn>[] {
  return states.map((state) => ({ ...state, id: newId("wfs"), details: JSON.stringify(state.details) }));
}

const keyOf = (key: WorkflowKey) =>
  sql`"orgId" = ${key.orgId} AND "environment" = ${key.environment} AND "workflow" = ${key.workflow} AND "subject" = ${key.subject} AND "track" = ${key.track}`;

/** The delete of the rows the moves replace, each only while it holds the state its move was decided from; null when none replaces a row. */
export function replacedWorkflowStates(moves: ReadonlyArray<{ state: WorkflowKey; replacing: string | null }>): Sql | null {
  const replacing = moves.flatMap(({ state, replacing }) => (replacing === null ? [] : [sql`(${keyOf(state)} AND "lastEventId" = ${replacing})`]));
  return replacing.length === 0 ? null : sql`DELETE FROM "WorkflowState" WHERE ${join(replacing, " OR ")}`;
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
    createdAt: row.createdAt,
  };
}

/** `reads` serves the state lookup of every event batch (outside a transaction: the driver's own statements). */
export function workflowRepository(db: PrismaTx, reads: SqlReads = prismaReads(db)): WorkflowRepository {
  return {
    async findMany(keys) {
      if (keys.length === 0) return [];
      // On the batched ingestion path: one plain SQL read on the driver for the whole batch.
      const rows = await reads.rows<WorkflowRow>(sql`SELECT * FROM "WorkflowState" WHERE ${join(keys.map((key) => sql`(${keyOf(key)})`), " OR ")}`);
      return rows.map((row) => toRecord({ ...row, updatedAt: new Date(row.updatedAt), createdAt: new Date(row.createdAt) }));
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
