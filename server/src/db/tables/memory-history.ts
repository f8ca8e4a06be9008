import type { TMemoryState } from "@engram/contract";
import { newId } from "../../domain/kernel/ids";
import type { HistoryAction, HistoryRecord } from "../../domain/memory/records";
import type { PrismaTx } from "../prisma";
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

/** A memory's history, oldest first. */
export async function historyOf(db: PrismaTx, memoryId: string): Promise<HistoryRecord[]> {
  const rows = await db.memoryHistory.findMany({ where: { memoryId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  return rows.map((row) => ({
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
