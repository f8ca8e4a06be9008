import type { CollectionChange, CollectionScope, CollectionState, RecentMemory, TimePosition } from "../../../domain/retrieval/ports";
import { limitOf, type PackedRow, type PackRow, raw, type Sql, sql } from "../../sql";
import type { SqlReads } from "../../sql-reads";
import { candidateSelect, olderThan, scopeFilter, unpackCandidates } from "./full-text";

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

/** How the dialect packs rows, and which terms its index counts. */
export interface MemoryReading {
  packRow: PackRow;
  countable(term: string): boolean;
}

/**
 * The logged changes of versions `after` < v <= `upTo` (see MemorySearch.collectionChanges), oldest first and
 * within a version a memory's leaving before its entering. Every version logs at least one change and the
 * triggers prune the oldest versions first, so the log holds them all exactly when it holds version `after` + 1.
 * `countable` keeps the terms the backend's index can count. Their terms are checked in the caller's process,
 * so the read is refused (null) beyond `maxText` characters of analysed text as well as beyond `limit` changes:
 * counting again is then the cheaper way. Each change comes with its memory as a candidate, as it is now (one keyed
 * read).
 */
export async function collectionChanges(
  db: SqlReads,
  scope: CollectionScope,
  range: { after: bigint; upTo: bigint; limit: number; maxText: number },
  reading: MemoryReading,
): Promise<CollectionChange[] | null> {
  const { after, upTo, limit, maxText } = range;
  if (upTo <= after) return [];
  const inRange = (alias: string) =>
    sql`${raw(alias)}"orgId" = ${scope.orgId} AND ${raw(alias)}"environment" = ${scope.environment} AND ${raw(alias)}"version" > ${after} AND ${raw(alias)}"version" <= ${upTo}`;
  // The guard measures at most limit + 1 rows, in the database, before any text is sent. The limits are written
  // into the statement: SQLite runs one with a bound limit markedly slower (see limitOf).
  const rows = await db.rows<PackedRow & { version: unknown; delta: unknown; memoryId: string; searchText: string; found: string | null }>(sql`
    SELECT c."version", c."delta", c."memoryId", c."searchText", m."id" AS "found", ${candidateSelect(reading.packRow)}
    FROM "MemoryCollectionChange" c LEFT JOIN "Memory" m ON m."id" = c."memoryId"
    WHERE ${inRange("c.")}
      AND (SELECT coalesce(sum(length(l."searchText")), 0) FROM (SELECT "searchText" FROM "MemoryCollectionChange" WHERE ${inRange("")} ${limitOf(limit + 1)}) l) <= ${maxText}
    ORDER BY c."version", c."delta" ${limitOf(limit + 1)}`);
  if (rows.length > limit || rows.length === 0 || readVersion(rows[0]!.version) !== after + 1n) return null;
  const candidates = new Map((await unpackCandidates(db, rows.filter((row) => row.found !== null))).map((candidate) => [candidate.id, candidate]));
  return rows.map((row) => ({
    version: readVersion(row.version),
    delta: Math.sign(Number(row.delta)) as CollectionChange["delta"],
    memoryId: row.memoryId,
    candidate: candidates.get(row.memoryId) ?? null,
    terms: countedTerms(row.searchText, reading.countable),
  }));
}

/**
 * The scope's newest `limit` durable memories after `after` in time order (from the newest when null), newest
 * first along the scope index, as candidates with their counted terms.
 */
export async function newestDurable(db: SqlReads, reading: MemoryReading, scope: CollectionScope, limit: number, after?: TimePosition | null): Promise<RecentMemory[]> {
  const rows = await db.rows<PackedRow>(sql`
    SELECT ${candidateSelect(reading.packRow)} FROM "Memory" m
    WHERE ${scopeFilter({ ...scope, agentSlug: null })} ${olderThan(after)}
    ORDER BY m."createdAt" DESC, m."id" DESC LIMIT ${limit}`);
  return (await unpackCandidates(db, rows)).map((candidate) => ({ candidate, terms: [...candidate.searchTerms.counts.keys()].filter(reading.countable) }));
}

/** Analysed text as the terms the index counts. */
function countedTerms(searchText: string | null, countable: (term: string) => boolean): string[] {
  return searchText ? searchText.split(" ").filter(countable) : [];
}
