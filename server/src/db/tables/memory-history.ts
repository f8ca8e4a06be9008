import type { TMemoryState } from "@engram/contract";
import { newId } from "../../domain/kernel/ids";
import type { PagePosition } from "../../domain/kernel/page-cursor";
import type { HistoryAction, HistoryRecord, StoredHistoryEntry } from "../../domain/memory/records";
import type { PrismaTx } from "../prisma";
import { rowsPast } from "../page-where";
import { prismaReads, type SqlReads } from "../sql-reads";
import { insertStatements, packedDate, type Row, sql, type Table } from "../sql";
import { memoryTable } from "./memories/memory-table";

const HISTORY_COLUMNS = ["id", "memoryId", "action", "fromState", "toState", "actor", "tokenId", "reason", "requestId", "createdAt"] as const;
type HistoryColumn = (typeof HISTORY_COLUMNS)[number];

export const memoryHistoryTable: Table<HistoryColumn> = { name: "MemoryHistory", columns: HISTORY_COLUMNS, references: [memoryTable] };

export function historyRows(entries: readonly HistoryRecord[]): Row<HistoryColumn>[] {
  return entries.map((entry) => ({ ...entry, id: newId("mhe") }));
}

/**
 * The time a change's entry takes: its own, or just after the memory's latest entry when that one is not older.
 * A change takes its time before it waits for the memory's row (its lock on Postgres, the database's on SQLite),
 * so a change that waited may commit after one that took a later time; asked once the change holds the row,
 * this keeps the history, listed by time, in the order the changes committed (docs/exactly-once-writes.md).
 */
export async function entryTime(reads: SqlReads, memoryId: string, at: Date): Promise<Date> {
  // Along the (memoryId, createdAt) index.
  const [latest] = await reads.rows<{ createdAt: unknown }>(sql`SELECT "createdAt" FROM "MemoryHistory" WHERE "memoryId" = ${memoryId} ORDER BY "createdAt" DESC LIMIT 1`);
  const latestAt = packedDate(latest?.createdAt ?? null);
  return latestAt !== null && latestAt.getTime() >= at.getTime() ? new Date(latestAt.getTime() + 1) : at;
}

/**
 * One entry, outside a batch (the same row and statement a batch writes), by a change that holds the memory's
 * row: at its time, or just after the latest entry (entryTime), the memory's updatedAt moved with it.
 * Returns the time the entry took.
 */
export async function appendHistory(db: PrismaTx, entry: HistoryRecord): Promise<Date> {
  const at = await entryTime(prismaReads(db), entry.memoryId, entry.createdAt);
  if (at !== entry.createdAt) await db.memory.updateMany({ where: { id: entry.memoryId, updatedAt: entry.createdAt }, data: { updatedAt: at } });
  for (const statement of insertStatements(memoryHistoryTable, historyRows([{ ...entry, createdAt: at }]))) await db.$executeRaw(statement);
  return at;
}

/** A page of a memory's history, oldest first (by time, then id), after `after` when given (along its index). */
export async function historyOf(db: PrismaTx, memoryId: string, after: PagePosition | null, limit: number): Promise<StoredHistoryEntry[]> {
  const rows = await db.memoryHistory.findMany({
    where: { memoryId, ...rowsPast(after, "asc") },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: limit,
  });
  return rows.map((row) => ({
    id: row.id,
    memoryId: row.memoryId,
    action: row.action as HistoryAction,
    fromState: row.fromState as TMemoryState | null,
    toState: row.toState as TMemoryState,
    actor: row.actor,
    tokenId: row.tokenId,
    reason: row.reason,
    requestId: row.requestId,
    createdAt: row.createdAt,
  }));
}
