import { chunks } from "../domain/kernel/chunks";
import { Prisma } from "./generated/sqlite/client.ts";

/**
 * Raw SQL for the storage modules. Prisma's tagged SQL keeps values as bound parameters and writes the
 * placeholders each provider expects; both generated clients share these runtime helpers. Statements are
 * written to run unchanged on SQLite and Postgres; where they cannot be, the difference is in dialect.ts.
 */
export const { sql, join, raw, empty } = Prisma;
export type Sql = Prisma.Sql;

/** One row to insert: a value for each of the table's columns (null and undefined store NULL). */
export type Row<Column extends string = string> = { readonly [C in Column]: unknown };

/** A table as its storage module describes it to the batch writer. */
export interface Table<Column extends string = string> {
  readonly name: string;
  /** Every column a batch insert writes, listed once here. */
  readonly columns: readonly Column[];
  /** The tables this one's rows refer to: a batch inserts their rows first. */
  readonly references: readonly Table[];
  /** What an insert does with a row whose unique key is taken; without it the insert fails. */
  readonly onConflict?: string;
}

/** Quoted column names for a SELECT or INSERT list, optionally qualified by a table alias. */
export function columnList(columns: readonly string[], alias?: string): Sql {
  const prefix = alias ? `${alias}.` : "";
  return raw(columns.map((column) => `${prefix}"${column}"`).join(", "));
}

/** Well under both providers' bound-parameter limits (SQLite 32,766; Postgres 65,535). */
const MAX_PARAMETERS = 30_000;

/** INSERT statements for many rows of one table, split to respect parameter limits. */
export function insertStatements<Column extends string>(table: Table<Column>, rows: readonly Row<Column>[]): Sql[] {
  const statements: Sql[] = [];
  const perStatement = Math.floor(MAX_PARAMETERS / table.columns.length);
  const columns = columnList(table.columns);
  const suffix = raw(table.onConflict ?? "");
  for (const chunk of chunks(rows, perStatement)) {
    const values = chunk.map((row) => sql`(${join(table.columns.map((column) => row[column] ?? null))})`);
    statements.push(sql`INSERT INTO ${raw(`"${table.name}"`)} (${columns}) VALUES ${join(values)} ${suffix}`);
  }
  return statements;
}

/**
 * `LIMIT n` written into the statement's text rather than bound. SQLite runs a statement with a bound limit
 * markedly slower (docs/performance.md, item 22), so its hot reads write their few constant limits; each
 * distinct limit is a statement text of its own, prepared once.
 */
export function limitOf(count: number): Sql {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`A row limit is a whole number of rows, not ${count}.`);
  return raw(`LIMIT ${count}`);
}

/** A row read packed as the text of one JSON array (see Dialect.packRow). */
export type PackedRow = { packed: string };

/** The rows' values, in the order their columns were packed. */
export function unpackRows(rows: readonly PackedRow[]): unknown[][] {
  return rows.map(({ packed }) => JSON.parse(packed) as unknown[]);
}

/** A timestamp as read (either dialect's packed form, or a driver's Date or ISO text) as a Date; null stays null. */
export function packedDate(value: unknown): Date | null {
  return value === null ? null : new Date(value as string | number | Date);
}

/** Selects each row (table alias m) as the text of one JSON array named "packed"; the SQL differs by dialect. */
export type PackRow = (columns: readonly string[], timestamps: ReadonlySet<string>) => Sql;
