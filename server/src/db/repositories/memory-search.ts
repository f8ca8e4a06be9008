import type { MemoryScope } from "../../domain/ports";
import { Prisma } from "../generated/sqlite/client.ts";
import type { PrismaTx } from "../prisma";

/**
 * Full-text candidate generation: the durable memories in scope that contain any query term, best
 * first by the backend's own full-text rank (FTS5's bm25 on SQLite, ts_rank over a stored, GIN-indexed
 * tsvector of the same analysed terms on Postgres), at most `limit` of them. The final ranking is computed
 * afterwards in TypeScript, the same on both backends; the candidate sets are identical whenever all
 * matches fit within the limit, and differ only at the margin beyond it.
 */
export type CandidateSearch = (db: PrismaTx, scope: MemoryScope, terms: readonly string[], limit: number) => Promise<RawCandidate[]>;

/** What ranking needs of a candidate; whole rows are read afterwards for the few that are returned. */
export interface RawCandidate {
  id: string;
  subject: string | null;
  searchText: string;
  confidence: unknown;
  reinforcementCount: unknown;
  recentUses: string;
  lastReinforcedAt: unknown;
  createdAt: unknown;
}

const CANDIDATE_COLUMNS = Prisma.raw(`m."id", m."subject", m."searchText", m."confidence", m."reinforcementCount", m."recentUses", m."lastReinforcedAt", m."createdAt"`);

function scopeFilter(scope: MemoryScope): Prisma.Sql {
  const agent = scope.agentSlug === null ? Prisma.empty : Prisma.sql`AND (m."agentSlug" = ${scope.agentSlug} OR m."agentSlug" IS NULL)`;
  return Prisma.sql`m."orgId" = ${scope.orgId} AND m."environment" = ${scope.environment} AND m."state" = 'durable' ${agent}`;
}

/** Terms are letters, digits and - _ . / : # @ only (see the analyser), so quoting them is enough. */
const quoted = (term: string, quote: string) => `${quote}${term}${quote}`;

export const sqliteCandidates: CandidateSearch = (db, scope, terms, limit) => {
  const match = `"terms" : (${terms.map((term) => quoted(term, '"')).join(" OR ")})`;
  // CROSS JOIN keeps the FTS table as the driving loop, so only matching rows are looked up.
  return db.$queryRaw`
    SELECT ${CANDIDATE_COLUMNS} FROM "MemorySearch" s CROSS JOIN "Memory" m ON m."id" = s."memoryId"
    WHERE "MemorySearch" MATCH ${match} AND ${scopeFilter(scope)}
    ORDER BY s."rank", m."id" LIMIT ${limit}`;
};

export const postgresCandidates: CandidateSearch = (db, scope, terms, limit) => {
  const query = terms.map((term) => quoted(term, "'")).join(" | ");
  return db.$queryRaw`
    SELECT ${CANDIDATE_COLUMNS} FROM "Memory" m
    WHERE m."searchVector" @@ ${query}::tsquery AND ${scopeFilter(scope)}
    ORDER BY ts_rank(m."searchVector", ${query}::tsquery) DESC, m."id"
    LIMIT ${limit}`;
};

/** Counts over every durable memory in the index (all organizations): the BM25 collection statistics. */
export interface StatsQueries {
  totals(db: PrismaTx): Promise<{ documents: number; averageLength: number }>;
  documentFrequency(db: PrismaTx, term: string): Promise<number>;
}

const first = (rows: Array<Record<string, unknown>>, column: string) => Number(rows[0]?.[column] ?? 0);

export const sqliteStats: StatsQueries = {
  async totals(db) {
    // Terms are single-space separated, so a row's term count is its spaces plus one (none when empty).
    const rows = await db.$queryRaw<Array<Record<string, unknown>>>`
      SELECT count(*) AS "documents",
             avg(CASE WHEN "searchText" = '' THEN 0 ELSE length("searchText") - length(replace("searchText", ' ', '')) + 1 END) AS "averageLength"
      FROM "Memory" WHERE "state" = 'durable'`;
    return { documents: first(rows, "documents"), averageLength: first(rows, "averageLength") };
  },
  async documentFrequency(db, term) {
    const match = `"terms" : ${quoted(term, '"')}`;
    return first(await db.$queryRaw<Array<Record<string, unknown>>>`SELECT count(*) AS "n" FROM "MemorySearch" WHERE "MemorySearch" MATCH ${match}`, "n");
  },
};

export const postgresStats: StatsQueries = {
  async totals(db) {
    const rows = await db.$queryRaw<Array<Record<string, unknown>>>`
      SELECT count(*) AS "documents",
             avg(coalesce(array_length(string_to_array(btrim("searchText"), ' '), 1), 0)) AS "averageLength"
      FROM "Memory" WHERE "state" = 'durable'`;
    return { documents: first(rows, "documents"), averageLength: first(rows, "averageLength") };
  },
  async documentFrequency(db, term) {
    const rows = await db.$queryRaw<Array<Record<string, unknown>>>`
      SELECT count(*) AS "n" FROM "Memory"
      WHERE "state" = 'durable' AND "searchVector" @@ ${quoted(term, "'")}::tsquery`;
    return first(rows, "n");
  },
};
