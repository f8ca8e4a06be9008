import type { TEnvironment, TMemoryState } from "@engram/contract";
import type { PlannedMemory } from "../../../domain/memory/ports";
import type { MemoryRecord, MemorySourceKind } from "../../../domain/memory/records";
import type { PrismaTx } from "../../prisma";
import { packedDate, type Row, type Table } from "../../sql";
import { businessEventTable } from "../business-events";
import { organizationTable } from "../organizations";
import { SEARCH_VERSION, searchTextOf } from "./search-text";

/** Every stored column of a memory (Postgres also derives "searchVector" from searchText itself). */
const MEMORY_COLUMNS = [
  "id", "orgId", "environment", "agentSlug", "text", "subject", "memoryKind", "confidence", "state", "source", "sourceRequestId",
  "sourceTokenId", "sourceActor", "idempotencyKey", "eventId", "searchText", "searchVersion", "reinforcementCount", "lastReinforcedAt",
  "recentUses", "createdAt", "updatedAt",
] as const;
export type MemoryColumn = (typeof MEMORY_COLUMNS)[number];

/** Columns that hold timestamps, which a packed read carries in its dialect's own form. */
export const MEMORY_TIMESTAMPS: ReadonlySet<MemoryColumn> = new Set(["lastReinforcedAt", "createdAt", "updatedAt"]);

export const memoryTable: Table<MemoryColumn> = { name: "Memory", columns: MEMORY_COLUMNS, references: [organizationTable, businessEventTable] };

/** The columns a MemoryRecord holds: all but the search index's own. */
export const RECORD_COLUMNS = MEMORY_COLUMNS.filter((column) => column !== "searchText" && column !== "searchVersion");

/** New memories as rows: analysed for search, with their encode as their one use so far. */
export function memoryRows(memories: readonly PlannedMemory[]): Row<MemoryColumn>[] {
  return memories.map((memory) => ({
    ...memory,
    searchText: searchTextOf(memory),
    searchVersion: SEARCH_VERSION,
    reinforcementCount: 0,
    lastReinforcedAt: null,
    recentUses: JSON.stringify([memory.createdAt]),
    updatedAt: memory.createdAt,
  }));
}

/** Rows written before use times were kept have none: their encode and last reinforcement stand in. */
export function recentUsesOf(row: { recentUses: string; createdAt: Date; lastReinforcedAt: Date | null }): Date[] {
  const stored = (JSON.parse(row.recentUses) as string[]).map((at) => new Date(at));
  if (stored.length > 0) return stored;
  return row.lastReinforcedAt ? [row.createdAt, row.lastReinforcedAt] : [row.createdAt];
}

export type MemoryRow = Awaited<ReturnType<PrismaTx["memory"]["findUniqueOrThrow"]>>;

/** A row the ORM read. */
export function memoryRecord(row: MemoryRow): MemoryRecord {
  const { searchText: _searchText, searchVersion: _searchVersion, ...fields } = row;
  return {
    ...fields,
    recentUses: recentUsesOf(row),
    environment: row.environment as TEnvironment,
    state: row.state as TMemoryState,
    source: row.source as MemorySourceKind,
  };
}

/** A row read packed, its values in RECORD_COLUMNS order. */
export function packedMemoryRecord(values: unknown[]): MemoryRecord {
  const row = Object.fromEntries(RECORD_COLUMNS.map((column, i) => [column, values[i]])) as Record<(typeof RECORD_COLUMNS)[number], unknown>;
  const createdAt = packedDate(row.createdAt)!;
  const lastReinforcedAt = packedDate(row.lastReinforcedAt);
  return {
    ...(row as Omit<MemoryRecord, "confidence" | "reinforcementCount" | "lastReinforcedAt" | "recentUses" | "createdAt" | "updatedAt">),
    confidence: Number(row.confidence),
    reinforcementCount: Number(row.reinforcementCount),
    lastReinforcedAt,
    recentUses: recentUsesOf({ recentUses: row.recentUses as string, createdAt, lastReinforcedAt }),
    createdAt,
    updatedAt: packedDate(row.updatedAt)!,
  };
}
