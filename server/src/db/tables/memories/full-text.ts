import { countTerms, type TermCounts } from "@engram/retrieval";
import { LRUCache } from "lru-cache";
import type { MemoryScope } from "../../../domain/memory/ports";
import type { CandidateQuery, CollectionScope, CountedTerms, Neighbour, NeighbourAnchor, NeighbourWindow, SearchCandidate, TimePosition } from "../../../domain/retrieval/ports";
import type { SqlReads } from "../../sql-reads";
import { empty, join, limitOf, type PackedRow, packedDate, type PackRow, raw, type Sql, sql } from "../../sql";
import { type MemoryColumn, MEMORY_TIMESTAMPS, recentUsesOf } from "./memory-table";

/**
 * Full-text candidate generation: the durable memories in scope that hold all or any of the query's
 * terms, at most `limit`, ordered by the backend's own full-text rank (FTS5's bm25 on SQLite, ts_rank over
 * a stored, GIN-indexed tsvector of the same analysed terms on Postgres) or newest first. The final
 * ranking is computed afterwards in TypeScript, the same on both backends; the candidate sets are
 * identical whenever all matches fit within the limit, and differ only at the margin beyond it.
 * Each dialect has its own (fts5-search.ts, tsvector-search.ts); dialect.ts says which.
 */
export interface FullTextSearch {
  /** Called with at least one term in every group. */
  candidates(db: SqlReads, scope: MemoryScope, query: CandidateQuery): Promise<SearchCandidate[]>;
  /** Candidates by id, still checked against the scope and the durable state. */
  byId(db: SqlReads, scope: MemoryScope, ids: readonly string[]): Promise<SearchCandidate[]>;
  /** The durable memories in scope written just before and after each anchor (see MemorySearch.neighbours). */
  neighbours(db: SqlReads, scope: MemoryScope, anchors: readonly NeighbourAnchor[], within: NeighbourWindow): Promise<Neighbour[]>;
  /** How many durable memories hold each term, in the terms' order, and the version counted; one round trip. */
  documentFrequencies(db: SqlReads, scope: CollectionScope, terms: readonly string[]): Promise<CountedTerms>;
  /** Whether the index counts a term at all (a term it cannot hold is counted in no memory). */
  countable(term: string): boolean;
}

/**
 * What ranking needs of a candidate but its terms; whole rows are read afterwards for the few that are returned.
 * The analyser's version stands in for the terms, which it decides with the id (a memory's text never changes).
 */
const CANDIDATE_COLUMNS = ["id", "subject", "searchVersion", "confidence", "reinforcementCount", "recentUses", "lastReinforcedAt", "createdAt", "agentSlug"] as const satisfies readonly MemoryColumn[];

/** The packed selection of a candidate's columns, in the dialect's SQL. */
export const candidateSelect = (packRow: PackRow): Sql => packRow(CANDIDATE_COLUMNS, MEMORY_TIMESTAMPS);

/** What is held of candidates is bounded by count and by distinct terms (a memory holds about 20, at most 4,096). */
const HELD = { max: 10_000, maxSize: 1_000_000 };

/**
 * Memories' terms as counted, by id and analyser version. A candidate's terms are read only when they are not
 * held: a recall over a hundred memories of the longest texts read 3 MB of terms for each lookup, most of its time
 * (docs/security.md).
 */
const heldTerms = new LRUCache<string, TermCounts>({ ...HELD, sizeCalculation: (terms) => terms.counts.size + 1 });

/**
 * Candidates parsed from their packed rows, by the packed text: the same text is the same candidate, so a memory
 * read again unchanged is not parsed again (its timestamps and uses), and a changed one is a new key. Retrieval
 * reads the same popular memories again and again.
 */
const parsedCandidates = new LRUCache<string, SearchCandidate>({ ...HELD, sizeCalculation: (candidate) => candidate.searchTerms.counts.size + 1 });

const termsKey = (id: string, searchVersion: unknown) => `${id}:${String(searchVersion)}`;

/**
 * Packed candidate rows as the retrieval port's candidates, which are shared and never changed; the terms of those
 * not held are read by id in one statement. A row packed twice (the neighbour of two anchors) is parsed once.
 */
export async function unpackCandidates(db: SqlReads, rows: readonly PackedRow[]): Promise<SearchCandidate[]> {
  const found = new Map<string, SearchCandidate>();
  const unparsed = new Map<string, UnparsedRow>();
  for (const { packed } of rows) {
    if (found.has(packed) || unparsed.has(packed)) continue;
    const candidate = parsedCandidates.get(packed);
    if (candidate) {
      found.set(packed, candidate);
      continue;
    }
    const columns = JSON.parse(packed) as unknown[];
    unparsed.set(packed, { columns, key: termsKey(columns[0] as string, columns[2]) });
  }
  if (unparsed.size > 0) {
    const terms = await countedTermsOf(db, [...unparsed.values()]);
    for (const [packed, { columns, key }] of unparsed) {
      const counted = terms.get(key);
      // A memory re-analysed or deleted between the two reads is ranked without terms this once, and not held.
      const candidate = parsedCandidate(columns, counted ?? NO_TERMS);
      if (counted) parsedCandidates.set(packed, candidate);
      found.set(packed, candidate);
    }
  }
  return rows.map(({ packed }) => found.get(packed)!);
}

/** A packed row's columns, and the key its terms are held by. */
type UnparsedRow = { columns: unknown[]; key: string };

/** The rows' terms by terms key: those held, and the rest read by id in one statement (and held from then on). */
async function countedTermsOf(db: SqlReads, rows: readonly UnparsedRow[]): Promise<Map<string, TermCounts>> {
  const terms = new Map<string, TermCounts>();
  const unheld = new Set<string>();
  for (const { columns, key } of rows) {
    const held = heldTerms.get(key);
    if (held) terms.set(key, held);
    else unheld.add(columns[0] as string);
  }
  if (unheld.size === 0) return terms;
  for (const { id, searchVersion, searchText } of await db.rows<TermsRow>(termsOf([...unheld]))) {
    const counted = countTerms(searchText ? searchText.split(" ") : []);
    heldTerms.set(termsKey(id, searchVersion), counted);
    terms.set(termsKey(id, searchVersion), counted);
  }
  return terms;
}

type TermsRow = { id: string; searchVersion: unknown; searchText: string | null };
const termsOf = (ids: readonly string[]): Sql => sql`SELECT m."id", m."searchVersion", m."searchText" FROM "Memory" m WHERE m."id" IN (${join([...ids])})`;
const NO_TERMS = countTerms([]);

function parsedCandidate([id, subject, , confidence, reinforcementCount, recentUses, lastReinforcedAt, createdAt, agentSlug]: unknown[], searchTerms: TermCounts): SearchCandidate {
  const created = packedDate(createdAt)!;
  return {
    id: id as string,
    subject: subject as string | null,
    confidence: Number(confidence),
    reinforcementCount: Number(reinforcementCount),
    createdAt: created,
    recentUses: recentUsesOf({ recentUses: recentUses as string, createdAt: created, lastReinforcedAt: packedDate(lastReinforcedAt) }),
    searchTerms,
    agentSlug: agentSlug as string | null,
  };
}

/**
 * The durable memories a scope sees (alias m): its organization and environment, and an agent's own plus shared
 * ones. `organization` is how the organization column is written (SQLite's unary `+` keeps it out of index choice).
 */
export function scopeFilter(scope: MemoryScope, organization: Sql = raw(`m."orgId"`)): Sql {
  const agent = scope.agentSlug === null ? empty : sql`AND (m."agentSlug" = ${scope.agentSlug} OR m."agentSlug" IS NULL)`;
  return sql`${organization} = ${scope.orgId} AND m."environment" = ${scope.environment} AND m."state" = 'durable' ${agent}`;
}

/** Memories (alias m) after `position` in time order, newest first; nothing when there is no position. */
export const olderThan = (position: TimePosition | undefined | null, alias: "m" | "t" = "m"): Sql =>
  position ? sql`AND (${raw(alias)}."createdAt", ${raw(alias)}."id") < (${position.createdAt}, ${position.id})` : empty;

/** Terms are letters, digits and - _ . / : # @ only (see the analyser), so quoting them is enough. */
export const quoted = (term: string, quote: string) => `${quote}${term}${quote}`;

/** The lookup's terms as a boolean expression in the backend's syntax, each term written by `literal`. */
export function termsExpression(query: CandidateQuery, syntax: { and: string; or: string; literal: (term: string) => string }): string {
  const anyOf = (terms: readonly string[]) => `(${terms.map(syntax.literal).join(syntax.or)})`;
  return query.match === "all" ? query.groups.map(anyOf).join(syntax.and) : anyOf(query.terms);
}

/**
 * Candidates by id: the same statement on both dialects but for the packing and how the organization column is
 * written in the scope test (see scopeFilter).
 */
export function candidatesById(packRow: PackRow, organization?: Sql): FullTextSearch["byId"] {
  const select = candidateSelect(packRow);
  return async (db, scope, ids) =>
    unpackCandidates(db, await db.rows<PackedRow>(sql`SELECT ${select} FROM "Memory" m WHERE m."id" IN (${join([...ids])}) AND ${scopeFilter(scope, organization)}`));
}

/**
 * Neighbours: for each anchor, the nearest `perSide` durable memories in scope of the anchor's agent written
 * before it and after it within `ms`. Each side is a range read of the agent-and-time index that stops at
 * `perSide` rows and packs the candidate's columns from the rows it visits anyway, so the read is bounded
 * however busy the scope is. Anchors must have an agent (shared memories are not exchanges); memories written
 * at the very same instant as an anchor are not told apart from it. This form, one branch per anchor and side,
 * is SQLite's; Postgres plans a statement afresh each time (see db/prisma.ts), so it reads all sides in one
 * lateral join instead (tsvector-search.ts).
 */
export function neighboursAround(packRow: PackRow): FullTextSearch["neighbours"] {
  const select = candidateSelect(packRow);
  return async (db, scope, anchors, { ms, perSide }) => {
    const sides = anchors.flatMap(({ id, agentSlug, createdAt }, i) => {
      const at = createdAt.getTime();
      const side = (name: string, range: Sql, order: "ASC" | "DESC") =>
        sql`SELECT * FROM (
          SELECT CAST(${id} AS TEXT) AS "anchorId", ${select} FROM "Memory" m
          WHERE ${scopeFilter(scope)} AND m."agentSlug" = ${agentSlug} AND ${range} ORDER BY m."createdAt" ${raw(order)} ${limitOf(perSide)}
        ) AS ${raw(`"${name}${i}"`)}`;
      return [
        side("b", sql`m."createdAt" < ${createdAt} AND m."createdAt" >= ${new Date(at - ms)}`, "DESC"),
        side("a", sql`m."createdAt" > ${createdAt} AND m."createdAt" <= ${new Date(at + ms)}`, "ASC"),
      ];
    });
    return unpackNeighbours(db, await db.rows(join(sides, " UNION ALL ")));
  };
}

/** Neighbour rows (an anchor's id beside a packed candidate) as the retrieval port's neighbours. */
export async function unpackNeighbours(db: SqlReads, rows: ReadonlyArray<PackedRow & { anchorId: string }>): Promise<Neighbour[]> {
  const candidates = await unpackCandidates(db, rows);
  return candidates.map((candidate, i) => ({ anchorId: rows[i]!.anchorId, candidate }));
}
