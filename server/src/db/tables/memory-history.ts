import type { TMemoryState } from "@engram/contract";
import { newId } from "../../domain/kernel/ids";
import type { PagePosition } from "../../domain/kernel/page-cursor";
import type { HistoryAction, HistoryRecord, StoredHistoryEntry } from "../../domain/memory/records";
import type { PrismaTx } from "../prisma";
import { rowsPast } from "../page-where";
import { insertStatements, type Row, type Table } from "../sql";
import { memoryTable } from "./memories/memory-table";

const HISTORY_COLUMNS = ["id", "memoryId", "action", "fromState", "toState", "actor", "tokenId", "reason", "requestId", "createdAt"] as const;
type HistoryColumn = (typeof HISTORY_COLUMNS)[number];

export const memoryHistoryTable: Table<HistoryColumn> = { name: "MemoryHistory", columns: HISTORY_COLUMNS, references: [memoryTable] };

export function historyRows(entries: readonly HistoryRecord[]): Row<HistoryColumn>[] {
  return entries.map((entry) => ({ ...entry, id: newId("mhe") }));
}

/** One entry, outside a batch: the same row and statement a batch writes. */
export async function appendHistory(db: PrismaTx, entry: HistoryRecord): Promise<void> {
  for (const statement of insertStatements(memoryHistoryTable, historyRows([entry]))) await db.$executeRaw(statement);
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
