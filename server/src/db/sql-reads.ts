import { createHash } from "node:crypto";
import pg from "pg";
import type { WaitMeter } from "../domain/kernel/wait-meter";
import type { PrismaTx } from "./prisma";
import type { Sql } from "./sql";
import { MAX_PREPARED, type SqliteConnection, sqliteValue } from "./sqlite-connection";

/**
 * Raw SELECTs for the hot read paths (retrieval's candidates, statistics and rows). Through Prisma each
 * statement, raw ones included, passes its query compiler: 0.2-0.3 ms of CPU per statement, more than the
 * database's own work for most of retrieval's (docs/performance.md). On the driver instead, each distinct
 * statement is prepared once per connection and run again by name.
 */
export interface SqlReads {
  rows<T>(statement: Sql): Promise<T[]>;
}

/** The same reads, each one's time until it answers counted on `waits`. */
export const timedReads = (reads: SqlReads, waits: WaitMeter): SqlReads => ({ rows: (statement) => waits.time(reads.rows(statement)) });

/** Reads through Prisma: inside a transaction, whose reads must see its own writes. */
export const prismaReads = (db: PrismaTx): SqlReads => ({ rows: (statement) => db.$queryRaw(statement) });

/** Postgres timestamps are stored in UTC without a zone (as Prisma writes and reads them). */
const TIMESTAMP_WITHOUT_ZONE = 1114;
export const utcTypes = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === TIMESTAMP_WITHOUT_ZONE ? (value: string) => new Date(`${value.replace(" ", "T")}Z`) : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
};

/** A value bound on pg directly; a Date as its UTC instant (Postgres ignores the zone of a value for a column without one). */
export const postgresValue = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/**
 * Names for statements that run again and again, so that each connection parses one only once (pg prepares a
 * named statement on a connection the first time it runs there); past MAX_PREPARED texts, the rest run unnamed.
 */
export function statementNames(): (text: string) => string | undefined {
  const names = new Map<string, string>();
  return (text) => {
    let name = names.get(text);
    if (!name && names.size < MAX_PREPARED) names.set(text, (name = `engram_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`));
    return name;
  };
}

/** Reads over the pool Prisma's adapter shares, as named prepared statements. */
export function postgresReads(pool: pg.Pool): SqlReads {
  const nameOf = statementNames();
  return {
    async rows<T>(statement: Sql) {
      const result = await pool.query({ name: nameOf(statement.text), text: statement.text, values: statement.values.map(postgresValue), types: utcTypes });
      return result.rows as T[];
    },
  };
}

/**
 * Reads on the store's own SQLite connection, beside Prisma's. With the write-ahead log a reader never waits
 * for a writer and sees every committed write.
 */
export function sqliteReads(connection: SqliteConnection): SqlReads {
  return {
    async rows<T>(statement: Sql) {
      return connection.statement(statement.sql).all(...statement.values.map(sqliteValue)) as T[];
    },
  };
}
