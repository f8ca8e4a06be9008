import type { CollectionChange, CollectionScope, CollectionState } from "../../../domain/retrieval/ports";
import { type Sql, sql } from "../../sql";
import type { SqlReads } from "../../sql-reads";

/**
 * The "MemoryCollection" row of a scope: its durable memories, their terms and the versions, all kept by
 * the triggers of its migration in the transaction of every write. A scope that never had a durable
 * memory or a vector has no row yet, which reads as empty.
 */
export async function collectionState(db: SqlReads, scope: CollectionScope): Promise<CollectionState> {
  const [row] = await db.rows<Record<"documents" | "totalTerms" | "version" | "vectorsVersion", number | bigint | string>>(sql`
    SELECT "documents", "totalTerms", "version", "vectorsVersion" FROM "MemoryCollection"
    WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment}`);
  if (!row) return { documents: 0, averageLength: 0, version: 0n, vectorsVersion: 0n };
  const documents = Number(row.documents);
  return {
    documents,
    averageLength: documents === 0 ? 0 : Number(row.totalTerms) / documents,
    version: BigInt(row.version),
    vectorsVersion: BigInt(row.vectorsVersion),
  };
}

/** The scope's version as a scalar subquery, to read in the same statement (so the same snapshot) as counts. */
export const versionOf = (scope: CollectionScope): Sql =>
  sql`(SELECT "version" FROM "MemoryCollection" WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment})`;

/** A version as read from either driver; a scope without a row is at version 0. */
export const readVersion = (value: unknown): bigint => (value === null || value === undefined ? 0n : BigInt(value as number | bigint | string));

/**
 * The logged changes of versions `after` < v <= `upTo` (see MemorySearch.collectionChanges). Every version
 * logs at least one change and the triggers prune the oldest versions first, so the log holds them all
 * exactly when it holds version `after` + 1. `countable` keeps the terms the backend's index can count.
 * Their terms are checked in the caller's process, so the read is refused (null) beyond `maxText` characters
 * of analysed text as well as beyond `limit` changes: counting again is then the cheaper way.
 */
export async function collectionChanges(
  db: SqlReads,
  scope: CollectionScope,
  range: { after: bigint; upTo: bigint; limit: number; maxText: number },
  countable: (term: string) => boolean,
): Promise<CollectionChange[] | null> {
  const { after, upTo, limit, maxText } = range;
  if (upTo <= after) return [];
  const inRange = sql`"orgId" = ${scope.orgId} AND "environment" = ${scope.environment} AND "version" > ${after} AND "version" <= ${upTo}`;
  // The guard measures at most limit + 1 rows, in the database, before any text is sent.
  const rows = await db.rows<{ version: unknown; delta: unknown; searchText: string }>(sql`
    SELECT "version", "delta", "searchText" FROM "MemoryCollectionChange"
    WHERE ${inRange}
      AND (SELECT coalesce(sum(length(c."searchText")), 0) FROM (SELECT "searchText" FROM "MemoryCollectionChange" WHERE ${inRange} LIMIT ${limit + 1}) c) <= ${maxText}
    ORDER BY "version" LIMIT ${limit + 1}`);
  if (rows.length > limit || rows.length === 0 || readVersion(rows[0]!.version) !== after + 1n) return null;
  return rows.map((row) => ({
    version: readVersion(row.version),
    delta: Number(row.delta) > 0 ? 1 : -1,
    terms: row.searchText === "" ? [] : row.searchText.split(" ").filter(countable),
  }));
}
