import type { PackedRow, PackRow } from "../../sql";
import { empty, join, limitOf, raw, sql } from "../../sql";
import type { CollectionScope } from "../../../domain/retrieval/ports";
import { readVersion, versionOf } from "./memory-collection";
import { candidateSelect, candidatesById, neighboursAround, type FullTextSearch, olderThan, quoted, scopeFilter, termsExpression, unpackCandidates } from "./full-text";

/**
 * A term as the index holds it: one token with the memory's organization and environment in front (see the
 * migration scoped_full_text_terms), so each lookup reads only its scope's postings.
 */
const scopedTerm = (scope: CollectionScope, term: string) => quoted(`${scope.orgId}:${scope.environment}:${term}`, '"');

/** SQLite's full-text search: the FTS5 table "MemorySearch" over memories' analysed terms. */
export function fts5Search(packRow: PackRow): FullTextSearch {
  const candidate = candidateSelect(packRow);
  return {
    async candidates(db, scope, query) {
      const { order, limit } = query;
      const expression = `"terms" : (${termsExpression(query, { and: " AND ", or: " OR ", literal: (term) => scopedTerm(scope, term) })})`;
      // FTS5 sorts by its rank itself, and walks its rowids (the order rows were indexed) backwards without
      // sorting, stopping at the limit; any other order would first read every match.
      const ordering = order === "relevance" ? sql`s."rank"` : sql`s."rowid" DESC`;
      // CROSS JOIN keeps the FTS table as the driving loop, so only matching rows are looked up.
      return unpackCandidates(
        db,
        await db.rows<PackedRow>(sql`
          SELECT ${candidate} FROM "MemorySearch" s CROSS JOIN "Memory" m ON m."id" = s."memoryId"
          WHERE "MemorySearch" MATCH ${expression} AND ${scopeFilter(scope)} ${order === "newest" ? olderThan(query.olderThan) : empty}
          ORDER BY ${ordering} ${limitOf(limit)}`),
      );
    },
    countable: () => true,
    // Given the scope test, SQLite would walk the scope's covering index rather than look the ids up (30 ms
    // against 1.5 ms for 100 ids at 100,000 memories; docs/performance.md).
    byId: candidatesById(packRow, raw(`+m."orgId"`)),
    neighbours: neighboursAround(packRow),
    async documentFrequencies(db, scope, terms) {
      const match = (term: string) => `"terms" : ${scopedTerm(scope, term)}`;
      const counts = terms.map((term, i) => sql`(SELECT count(*) FROM "MemorySearch" WHERE "MemorySearch" MATCH ${match(term)}) AS ${raw(`"t${i}"`)}`);
      // One statement is one read transaction: the counts are those of the version read beside them.
      const [row] = await db.rows<Record<string, unknown>>(sql`SELECT ${versionOf(scope)} AS "version", ${join(counts)}`);
      return { version: readVersion(row?.version), documents: terms.map((_, i) => Number(row?.[`t${i}`] ?? 0)) };
    },
  };
}
