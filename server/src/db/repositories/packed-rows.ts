import type { DatabaseConfig } from "../config";
import { Prisma } from "../generated/sqlite/client.ts";

/**
 * Hot reads select each row as one JSON array rather than column by column: Prisma converts every returned
 * value on its own (and its query builder costs about a millisecond a call), which for the rows a retrieval
 * reads costs more than the database's own work. Postgres writes its timestamps (UTC, without zone) as
 * epoch milliseconds, SQLite keeps its ISO strings; `new Date` reads both.
 */
export function packedColumns(provider: DatabaseConfig["provider"], columns: readonly string[], timestamps: ReadonlySet<string>): Prisma.Sql {
  const values = columns.map((column) =>
    provider === "postgres" && timestamps.has(column) ? `extract(epoch from m."${column}") * 1000` : `m."${column}"`,
  );
  return Prisma.raw(`${provider === "sqlite" ? "json_array" : "json_build_array"}(${values.join(", ")}) AS "packed"`);
}

export type PackedRow = { packed: string | unknown[] };

/** The rows' values, in the order their columns were packed. */
export function unpackRows(rows: readonly PackedRow[]): unknown[][] {
  return rows.map(({ packed }) => (typeof packed === "string" ? JSON.parse(packed) : packed) as unknown[]);
}

/** A packed timestamp (ISO string or epoch milliseconds) as a Date; null stays null. */
export function packedDate(value: unknown): Date | null {
  return value === null ? null : new Date(value as string | number);
}
