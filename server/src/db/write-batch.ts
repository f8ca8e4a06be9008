import { DuplicateKeyError } from "../domain/kernel/errors";
import { isUniqueViolation, type PrismaDb } from "./prisma";
import { insertStatements, type Row, type Sql, type Table } from "./sql";

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
 * order, sent together (Prisma's array transaction costs about half of an interactive one per statement).
 * A unique key that is already taken makes the whole write roll back with DuplicateKeyError.
 */
export async function writeUnitOfWork(prisma: PrismaDb, fill: (unit: UnitOfWork) => void): Promise<void> {
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
    await prisma.$transaction(statements.map((statement) => prisma.$executeRaw(statement)));
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateKeyError("batch write");
    throw error;
  }
}
