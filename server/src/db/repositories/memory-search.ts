import type { MemoryScope } from "../../domain/memory/ports";
import type { CandidateQuery, CollectionScope } from "../../domain/retrieval/ports";
import { Prisma } from "../generated/sqlite/client.ts";
import type { PrismaTx } from "../prisma";
import { packedColumns, packedDate, type PackedRow, unpackRows } from "./packed-rows";

/**
 * Full-text candidate generation: the durable memories in scope that hold all or any of the query's
 * terms, at most `limit`, ordered by the backend's own full-text rank (FTS5's bm25 on SQLite, ts_rank over
 * a stored, GIN-indexed tsvector of the same analysed terms on Postgres) or newest first. The final
 * ranking is computed afterwards in TypeScript, the same on both backends; the candidate sets are
 * identical whenever all matches fit within the limit, and differ only at the margin beyond it.
 */
export type CandidateSearch = (db: PrismaTx, scope: MemoryScope, query: CandidateQuery) => Promise<RawCandidate[]>;
/** Candidates by id, still checked against the scope and the durable state. */
export type CandidatesById = (db: PrismaTx, scope: MemoryScope, ids: readonly string[]) => Promise<RawCandidate[]>;

/** One provider's full-text search: its candidate lookups and its collection statistics. */
export interface FullTextSearch {
  candidates: CandidateSearch;
  byId: CandidatesById;
  stats: StatsQueries;
}

/** What ranking needs of a candidate; whole rows are read afterwards for the few that are returned. */
export interface RawCandidate {
  id: string;
  subject: string | null;
  searchText: string;
  confidence: number;
  reinforcementCount: number;
  recentUses: string;
  lastReinforcedAt: Date | null;
  createdAt: Date;
}

const CANDIDATE_COLUMNS = ["id", "subject", "searchText", "confidence", "reinforcementCount", "recentUses", "lastReinforcedAt", "createdAt"];
const TIMESTAMPS = new Set(["lastReinforcedAt", "createdAt"]);
const SQLITE_CANDIDATE = packedColumns("sqlite", CANDIDATE_COLUMNS, TIMESTAMPS);
const POSTGRES_CANDIDATE = packedColumns("postgres", CANDIDATE_COLUMNS, TIMESTAMPS);

function unpack(rows: PackedRow[]): RawCandidate[] {
  return unpackRows(rows).map(([id, subject, searchText, confidence, reinforcementCount, recentUses, lastReinforcedAt, createdAt]) => ({
    id: id as string,
    subject: subject as string | null,
    searchText: searchText as string,
    confidence: Number(confidence),
    reinforcementCount: Number(reinforcementCount),
    recentUses: recentUses as string,
    lastReinforcedAt: packedDate(lastReinforcedAt),
    createdAt: packedDate(createdAt)!,
  }));
}

function scopeFilter(scope: MemoryScope): Prisma.Sql {
  const agent = scope.agentSlug === null ? Prisma.empty : Prisma.sql`AND (m."agentSlug" = ${scope.agentSlug} OR m."agentSlug" IS NULL)`;
  return Prisma.sql`m."orgId" = ${scope.orgId} AND m."environment" = ${scope.environment} AND m."state" = 'durable' ${agent}`;
}

/** Terms are letters, digits and - _ . / : # @ only (see the analyser), so quoting them is enough. */
const quoted = (term: string, quote: string) => `${quote}${term}${quote}`;

/** The FTS5 filter for one organization and environment: their one-token "scope" column (see its migration). */
const scopeMatch = (scope: CollectionScope) => `"scope" : ${quoted(`${scope.orgId}:${scope.environment}`, '"')}`;

/** The lookup's terms as a boolean expression in the backend's syntax. */
function termsExpression(query: CandidateQuery, syntax: { and: string; or: string; quote: string }): string {
  const anyOf = (terms: readonly string[]) => `(${terms.map((term) => quoted(term, syntax.quote)).join(syntax.or)})`;
  return query.match === "all" ? query.groups.map(anyOf).join(syntax.and) : anyOf(query.terms);
}

export const sqliteCandidates: CandidateSearch = async (db, scope, query) => {
  const { order, limit } = query;
  const expression = `${scopeMatch(scope)} AND "terms" : (${termsExpression(query, { and: " AND ", or: " OR ", quote: '"' })})`;
  // FTS5 sorts by its rank itself, and walks its rowids (the order rows were indexed) backwards without
  // sorting, stopping at the limit; any other order would first read every match.
  const ordering = order === "relevance" ? Prisma.sql`s."rank"` : Prisma.sql`s."rowid" DESC`;
  // CROSS JOIN keeps the FTS table as the driving loop, so only matching rows are looked up.
  return unpack(
    await db.$queryRaw<PackedRow[]>`
      SELECT ${SQLITE_CANDIDATE} FROM "MemorySearch" s CROSS JOIN "Memory" m ON m."id" = s."memoryId"
      WHERE "MemorySearch" MATCH ${expression} AND ${scopeFilter(scope)}
      ORDER BY ${ordering} LIMIT ${limit}`,
  );
};

/**
 * Postgres refuses a tsquery word over 2,046 bytes (and stores a longer lexeme mangled), so a longer term
 * (a page of CJK without punctuation is one word) matches nothing there and is left out of its queries.
 */
const POSTGRES_LONGEST_TERM_BYTES = 2046;
const postgresTerm = (term: string) => Buffer.byteLength(term) <= POSTGRES_LONGEST_TERM_BYTES;

/** The lookup without the terms Postgres cannot search for, or null when it can match nothing. */
function postgresLookup(query: CandidateQuery): CandidateQuery | null {
  if (query.match === "any") {
    const terms = query.terms.filter(postgresTerm);
    return terms.length > 0 ? { ...query, terms } : null;
  }
  const groups = query.groups.map((group) => group.filter(postgresTerm));
  return groups.every((group) => group.length > 0) ? { ...query, groups } : null;
}

/** How many of a scope's newest memories a newest-first lookup on Postgres reads before it searches them all. */
export const POSTGRES_RECENT_WINDOW = 2_000;

export const postgresCandidates: CandidateSearch = async (db, scope, lookup) => {
  const query = postgresLookup(lookup);
  if (!query) return [];
  const { order, limit } = query;
  const tsquery = termsExpression(query, { and: " & ", or: " | ", quote: "'" });
  if (order === "relevance") {
    return unpack(
      await db.$queryRaw<PackedRow[]>`
        SELECT ${POSTGRES_CANDIDATE} FROM "Memory" m
        WHERE m."searchVector" @@ ${tsquery}::tsquery AND ${scopeFilter(scope)}
        ORDER BY ts_rank(m."searchVector", ${tsquery}::tsquery) DESC, m."id"
        LIMIT ${limit}`,
    );
  }
  // Newest first is asked for only when the terms are common. The planner, counting terms as independent,
  // may expect few memories to hold them all and read every match before sorting (tens of thousands in a
  // large organization). The scope's newest memories, read in order from their index, usually hold the
  // answer: if the window has `limit` matches, no older memory can be among the newest matches.
  const recent = unpack(
    await db.$queryRaw<PackedRow[]>`
      SELECT ${POSTGRES_CANDIDATE} FROM (
        SELECT * FROM "Memory" m WHERE ${scopeFilter(scope)}
        ORDER BY m."createdAt" DESC, m."id" DESC
        LIMIT ${POSTGRES_RECENT_WINDOW}
      ) m
      WHERE m."searchVector" @@ ${tsquery}::tsquery
      ORDER BY m."createdAt" DESC, m."id" DESC
      LIMIT ${limit}`,
  );
  if (recent.length >= limit) return recent;
  // Too few: the rest come from the memories older than the window, which is not read again.
  const [windowEnd] = await db.$queryRaw<Array<{ createdAt: Date; id: string }>>`
    SELECT m."createdAt", m."id" FROM "Memory" m WHERE ${scopeFilter(scope)}
    ORDER BY m."createdAt" DESC, m."id" DESC
    OFFSET ${POSTGRES_RECENT_WINDOW - 1} LIMIT 1`;
  if (!windowEnd) return recent;
  const older = unpack(
    await db.$queryRaw<PackedRow[]>`
      SELECT ${POSTGRES_CANDIDATE} FROM "Memory" m
      WHERE m."searchVector" @@ ${tsquery}::tsquery AND ${scopeFilter(scope)}
        AND (m."createdAt", m."id") < (${windowEnd.createdAt}, ${windowEnd.id})
      ORDER BY m."createdAt" DESC, m."id" DESC
      LIMIT ${limit - recent.length}`,
  );
  return [...recent, ...older];
};

const candidatesByIdSelecting =
  (packed: Prisma.Sql): CandidatesById =>
  async (db, scope, ids) =>
    unpack(await db.$queryRaw<PackedRow[]>`SELECT ${packed} FROM "Memory" m WHERE m."id" IN (${Prisma.join([...ids])}) AND ${scopeFilter(scope)}`);

export const sqliteCandidatesById = candidatesByIdSelecting(SQLITE_CANDIDATE);
export const postgresCandidatesById = candidatesByIdSelecting(POSTGRES_CANDIDATE);

/** Counts over the durable memories of one organization and environment: the BM25 collection statistics. */
export interface StatsQueries {
  totals(db: PrismaTx, scope: CollectionScope): Promise<{ documents: number; averageLength: number }>;
  /** How many durable memories hold each term, in the terms' order; one round trip for all of them. */
  documentFrequencies(db: PrismaTx, scope: CollectionScope, terms: readonly string[]): Promise<number[]>;
}

const first = (rows: Array<Record<string, unknown>>, column: string) => Number(rows[0]?.[column] ?? 0);

export const sqliteStats: StatsQueries = {
  async totals(db, scope) {
    // Terms are single-space separated, so a row's term count is its spaces plus one (none when empty).
    const rows = await db.$queryRaw<Array<Record<string, unknown>>>`
      SELECT count(*) AS "documents",
             avg(CASE WHEN "searchText" = '' THEN 0 ELSE length("searchText") - length(replace("searchText", ' ', '')) + 1 END) AS "averageLength"
      FROM "Memory" WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment} AND "state" = 'durable'`;
    return { documents: first(rows, "documents"), averageLength: first(rows, "averageLength") };
  },
  async documentFrequencies(db, scope, terms) {
    const match = (term: string) => `${scopeMatch(scope)} AND "terms" : ${quoted(term, '"')}`;
    const counts = terms.map((term, i) => Prisma.sql`(SELECT count(*) FROM "MemorySearch" WHERE "MemorySearch" MATCH ${match(term)}) AS ${Prisma.raw(`"t${i}"`)}`);
    const [row] = await db.$queryRaw<Array<Record<string, unknown>>>`SELECT ${Prisma.join(counts)}`;
    return terms.map((_, i) => Number(row?.[`t${i}`] ?? 0));
  },
};

export const postgresStats: StatsQueries = {
  async totals(db, scope) {
    const rows = await db.$queryRaw<Array<Record<string, unknown>>>`
      SELECT count(*) AS "documents",
             avg(coalesce(array_length(string_to_array(btrim("searchText"), ' '), 1), 0)) AS "averageLength"
      FROM "Memory" WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment} AND "state" = 'durable'`;
    return { documents: first(rows, "documents"), averageLength: first(rows, "averageLength") };
  },
  async documentFrequencies(db, scope, terms) {
    if (!terms.some(postgresTerm)) return terms.map(() => 0);
    // One pass over the rows holding any of the terms (found through the GIN index), counted per term.
    const counts = terms.map((term, i) =>
      postgresTerm(term) ? Prisma.sql`count(*) FILTER (WHERE "searchVector" @@ ${quoted(term, "'")}::tsquery) AS ${Prisma.raw(`"t${i}"`)}` : Prisma.sql`0 AS ${Prisma.raw(`"t${i}"`)}`,
    );
    const any = terms.filter(postgresTerm).map((term) => quoted(term, "'")).join(" | ");
    const [row] = await db.$queryRaw<Array<Record<string, unknown>>>`
      SELECT ${Prisma.join(counts)} FROM "Memory"
      WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment} AND "state" = 'durable' AND "searchVector" @@ ${any}::tsquery`;
    return terms.map((_, i) => Number(row?.[`t${i}`] ?? 0));
  },
};
