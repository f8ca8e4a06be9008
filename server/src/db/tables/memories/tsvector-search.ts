import type { PackedRow, PackRow } from "../../sql";
import { empty, join, raw, type Sql, sql } from "../../sql";
import type { SqlReads } from "../../sql-reads";
import type { MemoryScope } from "../../../domain/memory/ports";
import type { CandidateQuery, CollectionScope, SearchCandidate, TimePosition } from "../../../domain/retrieval/ports";
import { newestFirst } from "../../../domain/retrieval/time-order";
import { readVersion, versionOf } from "./memory-collection";
import { candidateSelect, candidatesById, type FullTextSearch, olderThan, quoted, scopeFilter, termsExpression, unpackCandidates, unpackNeighbours } from "./full-text";

/**
 * Postgres refuses a tsquery word over 2,046 bytes (and stores a longer lexeme mangled), so a longer term
 * (a page of CJK without punctuation is one word) matches nothing there and is left out of its queries.
 */
const LONGEST_TERM_BYTES = 2046;
// A UTF-16 code unit is at most 3 bytes of UTF-8, so only long strings need measuring (the change log checks every term).
const searchable = (term: string) => term.length <= LONGEST_TERM_BYTES / 3 || Buffer.byteLength(term) <= LONGEST_TERM_BYTES;

/** The lookup without the terms Postgres cannot search for, or null when it can match nothing. */
function searchableLookup(query: CandidateQuery): CandidateQuery | null {
  if (query.match === "any") {
    const terms = query.terms.filter(searchable);
    return terms.length > 0 ? { ...query, terms } : null;
  }
  const groups = query.groups.map((group) => group.filter(searchable));
  return groups.every((group) => group.length > 0) ? { ...query, groups } : null;
}

/**
 * How far a newest-first lookup on Postgres walks the scope's memories in time order before it lets the planner
 * search the rest: first the newest `window`, then, when the matches found there say the missing ones lie within
 * `walk` more, that many (docs/performance.md).
 */
export interface NewestWalk {
  window: number;
  walk: number;
}
export const NEWEST_WALK: NewestWalk = { window: 2_000, walk: 8_000 };

/**
 * The durable memories one newest-first walk reads: an organization and environment's, every one of them, or
 * (with `agentSlug`) only one agent's own or, for null, only the shared ones, written by no agent.
 */
type Lane = CollectionScope & { agentSlug?: string | null };

/** The lane's memories (table alias given; the timeline holds only durable ones). */
function laneFilter(lane: Lane, alias: "m" | "t"): Sql {
  const column = raw(`${alias}."agentSlug"`);
  const agent = lane.agentSlug === undefined ? empty : lane.agentSlug === null ? sql`AND ${column} IS NULL` : sql`AND ${column} = ${lane.agentSlug}`;
  const state = alias === "m" ? sql`AND m."state" = 'durable'` : empty;
  return sql`${raw(alias)}."orgId" = ${lane.orgId} AND ${raw(alias)}."environment" = ${lane.environment} ${state} ${agent}`;
}

/**
 * The lanes of a scope: an organization-wide scope is one; an agent's boundary is two, its own memories and the
 * shared ones, each read in time order on its own stretch of the timeline's agent key, rather than the whole
 * organization's rows walked for the few the agent sees (docs/performance.md).
 */
const lanesOf = (scope: MemoryScope): Lane[] =>
  scope.agentSlug === null ? [{ orgId: scope.orgId, environment: scope.environment }] : [scope, { ...scope, agentSlug: null }];

/**
 * Postgres's full-text search: the GIN-indexed tsvector column "searchVector" derived from searchText, and for
 * walks in time order the narrow "MemoryTimeline" (each durable memory's scope, time, agent and vector, kept by
 * triggers in every write's transaction), a third of a Memory row's width (docs/performance.md).
 */
export function tsvectorSearch(packRow: PackRow, sizes: NewestWalk = NEWEST_WALK): FullTextSearch {
  const candidate = candidateSelect(packRow);

  /**
   * A row count the planner cannot see: it plans for a tenth of the scope's rows. Seeing most of a small scope's
   * rows asked for, it would read and sort them all rather than walk in key order until the matches are found
   * (12 ms instead of 3 ms for a walk of 8,000 rows in a scope of 10,000; docs/performance.md).
   */
  const unseen = (count: number) => sql`(SELECT CAST(${count} AS bigint))`;

  /** The newest `limit` matches among the `rows` memories of the lane that come next in time order after `after`. */
  const newestAmong = async (db: SqlReads, lane: Lane, tsquery: string, after: TimePosition | null, rows: number, limit: number) =>
    unpackCandidates(
      db,
      await db.rows<PackedRow>(sql`
        SELECT ${candidate} FROM (
          SELECT t."id", t."createdAt" FROM (
            SELECT * FROM "MemoryTimeline" t WHERE ${laneFilter(lane, "t")} ${olderThan(after, "t")}
            ORDER BY t."createdAt" DESC, t."id" DESC
            LIMIT ${unseen(rows)}
          ) t
          WHERE t."searchVector" @@ ${tsquery}::tsquery
          ORDER BY t."createdAt" DESC, t."id" DESC
          LIMIT ${limit}
        ) t JOIN "Memory" m ON m."id" = t."id"
        ORDER BY t."createdAt" DESC, t."id" DESC`),
    );

  /** Where the lane's `rows` memories after `after` end (read from the timeline's keys alone), or null when it has fewer. */
  const windowEnd = async (db: SqlReads, lane: Lane, after: TimePosition | null, rows: number): Promise<TimePosition | null> => {
    const [last] = await db.rows<TimePosition>(sql`
      SELECT t."createdAt", t."id" FROM "MemoryTimeline" t WHERE ${laneFilter(lane, "t")} ${olderThan(after, "t")}
      ORDER BY t."createdAt" DESC, t."id" DESC
      OFFSET ${unseen(rows - 1)} LIMIT 1`);
    return last ?? null;
  };

  /**
   * The lane's newest `limit` matches after `start` (from its newest memory when null). The planner, counting
   * terms as independent, may expect few memories to hold them all and read every match before sorting
   * (thousands in a large organization, a page read each).
   * The lane's newest memories, read in order from the timeline, usually hold the answer. Past them, walking on
   * costs a fraction of a page read a row, so the walk goes on while the window's share of matches says the
   * rest lie near; the planner searches only what lies beyond.
   */
  async function newestInLane(db: SqlReads, lane: Lane, tsquery: string, start: TimePosition | null, limit: number): Promise<SearchCandidate[]> {
    let found = await newestAmong(db, lane, tsquery, start, sizes.window, limit);
    if (found.length >= limit) return found;
    // Each later read goes on from the last match found (the rows read past it matched nothing), so only a
    // window without a match needs to know where it ended.
    let after = found.length > 0 ? found[found.length - 1]! : await windowEnd(db, lane, start, sizes.window);
    if (!after) return found;
    const expectedRows = found.length === 0 ? Infinity : ((limit - found.length) * sizes.window) / found.length;
    if (expectedRows <= sizes.walk) {
      const walked = await newestAmong(db, lane, tsquery, after, sizes.walk, limit - found.length);
      found = [...found, ...walked];
      if (found.length >= limit) return found;
      after = walked.at(-1) ?? after;
    }
    const older = await unpackCandidates(
      db,
      await db.rows<PackedRow>(sql`
        SELECT ${candidate} FROM "Memory" m
        WHERE m."searchVector" @@ ${tsquery}::tsquery AND ${laneFilter(lane, "m")} ${olderThan(after, "m")}
        ORDER BY m."createdAt" DESC, m."id" DESC
        LIMIT ${limit - found.length}`),
    );
    return [...found, ...older];
  }

  return {
    async candidates(db, scope, lookup) {
      const query = searchableLookup(lookup);
      if (!query) return [];
      const { order, limit, olderThan: start = null } = query;
      const tsquery = termsExpression(query, { and: " & ", or: " | ", literal: (term) => quoted(term, "'") });
      if (order === "relevance") {
        return unpackCandidates(
      db,
          await db.rows<PackedRow>(sql`
            SELECT ${candidate} FROM "Memory" m
            WHERE m."searchVector" @@ ${tsquery}::tsquery AND ${scopeFilter(scope)}
            ORDER BY ts_rank(m."searchVector", ${tsquery}::tsquery) DESC, m."id"
            LIMIT ${limit}`),
        );
      }
      // Newest first is asked for only when the terms are common. An agent's boundary holds the newest of its two
      // lanes' newest matches; the lanes are read one after the other (on two cores, both at once was no faster).
      const lanes: SearchCandidate[][] = [];
      for (const lane of lanesOf(scope)) lanes.push(await newestInLane(db, lane, tsquery, start, limit));
      return lanes.length === 1 ? lanes[0]! : lanes.flat().sort(newestFirst).slice(0, limit);
    },
    byId: candidatesById(packRow),
    // One lateral join over the anchors: the same statement text for any number of them, whose plan is small,
    // where a branch per anchor and side (SQLite's form) would cost Postgres about a millisecond to plan.
    async neighbours(db, scope, anchors, { ms, perSide }) {
      const instant = (at: number) => new Date(at).toISOString();
      const side = (range: Sql, order: "ASC" | "DESC") =>
        sql`(SELECT ${candidate} FROM "Memory" m WHERE ${scopeFilter(scope)} AND m."agentSlug" = a."agentSlug" AND ${range}
          ORDER BY m."createdAt" ${raw(order)} LIMIT ${perSide})`;
      return unpackNeighbours(
        db,
        await db.rows<PackedRow & { anchorId: string }>(sql`
          SELECT a."anchorId", s."packed"
          FROM unnest(CAST(${anchors.map((a) => a.id)} AS text[]), CAST(${anchors.map((a) => a.agentSlug)} AS text[]),
            CAST(${anchors.map((a) => instant(a.createdAt.getTime()))} AS timestamp(3)[]),
            CAST(${anchors.map((a) => instant(a.createdAt.getTime() - ms))} AS timestamp(3)[]),
            CAST(${anchors.map((a) => instant(a.createdAt.getTime() + ms))} AS timestamp(3)[])) AS a("anchorId", "agentSlug", "at", "from", "to")
          CROSS JOIN LATERAL (
            ${side(sql`m."createdAt" < a."at" AND m."createdAt" >= a."from"`, "DESC")}
            UNION ALL
            ${side(sql`m."createdAt" > a."at" AND m."createdAt" <= a."to"`, "ASC")}
          ) AS s`),
      );
    },
    countable: searchable,
    async documentFrequencies(db, scope, terms) {
      // One statement is one snapshot: the counts are those of the version read beside them.
      if (!terms.some(searchable)) {
        const [row] = await db.rows<{ version: unknown }>(sql`SELECT ${versionOf(scope)} AS "version"`);
        return { version: readVersion(row?.version), documents: terms.map(() => 0) };
      }
      // One pass over the rows holding any of the terms (found through the GIN index), counted per term.
      const counts = terms.map((term, i) =>
        searchable(term) ? sql`count(*) FILTER (WHERE "searchVector" @@ ${quoted(term, "'")}::tsquery) AS ${raw(`"t${i}"`)}` : sql`0 AS ${raw(`"t${i}"`)}`,
      );
      const any = terms.filter(searchable).map((term) => quoted(term, "'")).join(" | ");
      const [row] = await db.rows<Record<string, unknown>>(sql`
        SELECT ${versionOf(scope)} AS "version", ${join(counts)} FROM "Memory"
        WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment} AND "state" = 'durable' AND "searchVector" @@ ${any}::tsquery`);
      return { version: readVersion(row?.version), documents: terms.map((_, i) => Number(row?.[`t${i}`] ?? 0)) };
    },
  };
}
