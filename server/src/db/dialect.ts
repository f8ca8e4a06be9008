import type { DatabaseConfig } from "./config";
import { limitOf, type PackRow, raw, type Sql, sql } from "./sql";
import { fts5Search } from "./tables/memories/fts5-search";
import type { FullTextSearch } from "./tables/memories/full-text";
import { tsvectorSearch } from "./tables/memories/tsvector-search";

/**
 * What differs between SQLite and Postgres SQL, chosen once when the store opens. Everything else
 * (inserts, ON CONFLICT upserts, RETURNING, tagged parameters) is written once and runs on both.
 */
export interface Dialect {
  readonly provider: DatabaseConfig["provider"];
  /**
   * Hot reads select each row as one JSON array rather than column by column: Prisma converts every
   * returned value on its own, which for the rows a retrieval reads costs more than the database's own work.
   */
  readonly packRow: PackRow;
  /** Full-text search over memories' analysed terms: FTS5 on SQLite, a tsvector on Postgres. */
  readonly memorySearch: FullTextSearch;
  /** The UTC day (YYYY-MM-DD) of a timestamp column, for per-day counts. */
  readonly utcDay: (column: Sql) => Sql;
  /**
   * A DELETE of at most `limit` of `table`'s rows matching `where`, picked by where each row is stored (SQLite's
   * rowid, Postgres's ctid): a bounded delete needs no key, however many columns the table's key has.
   */
  readonly deleteSome: (table: string, where: Sql, limit: number) => Sql;
}

/**
 * Packs the columns with the dialect's JSON array function, read as text; `timestamp` says how a timestamp is
 * written into it. As text, a row is a key the reader can recognise again (see unpackCandidates).
 */
function packing(jsonArray: (values: string) => string, timestamp: (column: string) => string): PackRow {
  return (columns, timestamps) =>
    raw(`${jsonArray(columns.map((column) => (timestamps.has(column) ? timestamp(column) : `m."${column}"`)).join(", "))} AS "packed"`);
}

/** SQLite keeps timestamps as ISO strings, packed as they are; its JSON is text. */
const sqlitePacking = packing((values) => `json_array(${values})`, (column) => `m."${column}"`);

/** Postgres packs its timestamps (UTC, without zone) as epoch milliseconds; `new Date` reads both forms. */
const postgresPacking = packing((values) => `json_build_array(${values})::text`, (column) => `extract(epoch from m."${column}") * 1000`);

const dialects: Record<DatabaseConfig["provider"], Dialect> = {
  sqlite: {
    provider: "sqlite",
    packRow: sqlitePacking,
    memorySearch: fts5Search(sqlitePacking),
    utcDay: (column) => sql`strftime('%Y-%m-%d', ${column})`,
    deleteSome: (table, where, limit) => sql`DELETE FROM ${raw(`"${table}"`)} WHERE rowid IN (SELECT rowid FROM ${raw(`"${table}"`)} WHERE ${where} ${limitOf(limit)})`,
  },
  postgres: {
    provider: "postgres",
    packRow: postgresPacking,
    memorySearch: tsvectorSearch(postgresPacking),
    // Timestamps are stored in UTC without a zone.
    utcDay: (column) => sql`to_char(${column}, 'YYYY-MM-DD')`,
    // `= ANY(ARRAY(…))` rather than `IN (…)`: Postgres then fetches the rows by their ctids (a TID scan).
    deleteSome: (table, where, limit) => sql`DELETE FROM ${raw(`"${table}"`)} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${raw(`"${table}"`)} WHERE ${where} ${limitOf(limit)}))`,
  },
};

export const dialectFor = (provider: DatabaseConfig["provider"]): Dialect => dialects[provider];
