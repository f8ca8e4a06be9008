import Database from "better-sqlite3";

/**
 * Statements prepared per connection, at most: the hot statements' texts are few (they vary only with the
 * number of ids, terms or rows bound), and past this bound a new text runs unprepared rather than growing it.
 */
export const MAX_PREPARED = 500;

/** A Date bound as Prisma's SQLite adapter writes it (ISO 8601, +00:00), so comparisons with stored ones hold. */
export const sqliteValue = (value: unknown) => (value instanceof Date ? value.toISOString().replace("Z", "+00:00") : typeof value === "boolean" ? Number(value) : value);

/** A SQLite connection of the store's own beside Prisma's, with its statements prepared once. */
export interface SqliteConnection {
  readonly db: Database.Database;
  statement(sql: string): Database.Statement;
  close(): void;
}

/**
 * Opens the database file again, with the settings Prisma's connection has (foreign keys on, synchronous
 * NORMAL). It never waits for a lock (busy timeout 0: the wait would stop the event loop); the store retries
 * a busy call asynchronously, as for every other connection to the file.
 */
export function openSqliteConnection(file: string): SqliteConnection {
  const db = new Database(file, { fileMustExist: true, timeout: 0 });
  db.pragma("foreign_keys = ON");
  db.pragma("synchronous = NORMAL");
  const prepared = new Map<string, Database.Statement>();
  return {
    db,
    statement(sql) {
      let statement = prepared.get(sql);
      if (!statement) {
        statement = db.prepare(sql);
        if (prepared.size < MAX_PREPARED) prepared.set(sql, statement);
      }
      return statement;
    },
    close: () => db.close(),
  };
}
