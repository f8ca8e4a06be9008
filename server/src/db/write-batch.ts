import type pg from "pg";
import { DuplicateKeyError } from "../domain/kernel/errors";
import { isUniqueViolation } from "./prisma";
import { insertStatements, join, raw, type Row, type Sql, sql, type Table } from "./sql";
import { postgresValue, statementNames } from "./sql-reads";
import type { RestartGate } from "./sqlite-checkpoints";
import { type SqliteConnection, sqliteValue } from "./sqlite-connection";

/**
 * Runs statements as one transaction: all applied, or (the promise rejected) none. `ordered` says a statement
 * must see the effects of those before it (a delete before inserts that may reuse its keys).
 */
export type RunAtomically = (statements: readonly Sql[], ordered: boolean) => Promise<void>;

/**
 * On the store's own SQLite connection, its statements prepared once, without Prisma's compiler (0.2-0.3 ms
 * of CPU per statement, docs/performance.md). The transaction takes the write lock as it begins (IMMEDIATE),
 * so it either runs whole or fails at once as busy, and the store runs it again, as when another process
 * holds the lock; better-sqlite3 rolls back a transaction whose statement threw. It begins once the checkpoint
 * thread's restart of the log, if one runs, has ended (`gate`).
 */
export const sqliteTransaction =
  (connection: SqliteConnection, gate?: RestartGate): RunAtomically =>
  async (statements) => {
    if (gate) await gate.passed();
    connection.db
      .transaction(() => {
        for (const statement of statements) connection.statement(statement.sql).run(...statement.values.map(sqliteValue));
      })
      .immediate();
  };

/** Well under Postgres's 65,535 bound parameters in one statement. */
const MAX_PARAMETERS_PER_STATEMENT = 30_000;
/**
 * A batch statement this small (a lone write's rows) recurs with the same text, so it is prepared once per
 * connection; larger ones vary with their row counts, and a connection would hold many, large, used rarely.
 */
const MAX_PARAMETERS_PREPARED = 200;

/**
 * On the pool directly: Prisma's query compiler costs 0.2-0.3 ms of CPU per statement, more than Postgres
 * takes to run a batch's inserts (docs/performance.md). Inserts go as one statement, each a data-modifying
 * WITH query: one round trip, atomic as any statement is, and constraints are checked at its end, so rows
 * that refer to rows inserted beside them are accepted. Such queries do not see each other's effects, so
 * ordered statements (and a batch too large for one statement's parameters) run as a transaction on one
 * connection instead, which is discarded if the transaction failed.
 */
export function postgresTransaction(pool: pg.Pool): RunAtomically {
  const nameOf = statementNames();
  return async (statements, ordered) => {
    const values = (statement: Sql) => statement.values.map(postgresValue);
    if (!ordered && statements.reduce((sum, statement) => sum + statement.values.length, 0) <= MAX_PARAMETERS_PER_STATEMENT) {
      const together = statements.length === 1 ? statements[0]! : sql`WITH ${join(statements.map((statement, i) => sql`${raw(`"w${i}"`)} AS (${statement})`))} SELECT 1`;
      const name = together.values.length <= MAX_PARAMETERS_PREPARED ? nameOf(together.text) : undefined;
      await pool.query({ name, text: together.text, values: values(together) });
      return;
    }
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      for (const statement of statements) await client.query(statement.text, values(statement));
      await client.query("COMMIT");
    } catch (error) {
      client.release(true);
      throw error;
    }
    client.release();
  };
}

/** What the storage modules queue for one atomic write: deletes, and rows to insert into their tables. */
export interface UnitOfWork {
  delete(statement: Sql): void;
  insert<Column extends string>(table: Table<Column>, rows: readonly Row<Column>[]): void;
}

/** How far a table is from the tables that refer to nothing: its rows go after every table it refers to. */
function depth(table: Table): number {
  return table.references.length === 0 ? 0 : 1 + Math.max(...table.references.map(depth));
}

/**
 * Runs everything `fill` queues as one transaction: the deletes first, then one multi-row insert per
 * table (more for very many rows), parents before the rows that refer to them and otherwise in a fixed
 * order, run by `run` (the backend's own way, below). A unique key that is already taken makes the whole write roll back with DuplicateKeyError.
 */
export async function writeUnitOfWork(run: RunAtomically, fill: (unit: UnitOfWork) => void): Promise<void> {
  const deletes: Sql[] = [];
  const inserts = new Map<Table, Row[]>();
  fill({
    delete: (statement) => deletes.push(statement),
    insert(table, rows) {
      if (rows.length === 0) return;
      const queued = inserts.get(table) ?? [];
      inserts.set(table, queued);
      queued.push(...rows);
    },
  });
  const tables = [...inserts.keys()].sort((a, b) => depth(a) - depth(b) || a.name.localeCompare(b.name));
  const statements = [...deletes, ...tables.flatMap((table) => insertStatements(table, inserts.get(table)!))];
  if (statements.length === 0) return;
  try {
    await run(statements, deletes.length > 0);
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateKeyError("batch write");
    throw error;
  }
}
