import { Prisma } from "./generated/sqlite/client.ts";

/**
 * Multi-row statements for the batched write paths. Prisma's tagged SQL keeps values as bound
 * parameters and writes the placeholders each provider expects; the SQL itself is written to run
 * unchanged on SQLite and Postgres.
 */

/** Well under both providers' bound-parameter limits (SQLite 32,766; Postgres 65,535). */
const MAX_PARAMETERS = 30_000;

export type Row = Record<string, unknown>;

/** INSERT statements for many rows (split to respect parameter limits), with an optional raw SQL suffix. */
export function insertStatements(table: string, columns: readonly string[], rows: readonly Row[], suffix = ""): Prisma.Sql[] {
  const statements: Prisma.Sql[] = [];
  const perStatement = Math.floor(MAX_PARAMETERS / columns.length);
  const columnList = Prisma.raw(columns.map((column) => `"${column}"`).join(", "));
  for (let i = 0; i < rows.length; i += perStatement) {
    const values = rows.slice(i, i + perStatement).map((row) => Prisma.sql`(${Prisma.join(columns.map((column) => row[column] ?? null))})`);
    statements.push(Prisma.sql`INSERT INTO ${Prisma.raw(`"${table}"`)} (${columnList}) VALUES ${Prisma.join(values)} ${Prisma.raw(suffix)}`);
  }
  return statements;
}
