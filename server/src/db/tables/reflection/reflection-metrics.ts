import type { TMemoryKind, TMemoryState } from "@engram/contract";
import type { ReflectionMetricsRepository } from "../../../domain/reflection/metrics/ports";
import type { Dialect } from "../../dialect";
import { join, raw, type Sql, sql } from "../../sql";
import type { SqlReads } from "../../sql-reads";

/** Drivers answer counts and sums as bigint, numeric strings or numbers. */
const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));

/** How many of the ascending edges the value reaches: its bucket index, open ends folded in. */
function bucketOf(value: Sql, edges: readonly unknown[]): Sql {
  if (edges.length === 0) return sql`0`;
  return join(edges.map((edge) => sql`(CASE WHEN ${value} >= ${edge} THEN 1 ELSE 0 END)`), " + ");
}

/** Real-valued edges compare as floats on both databases (a whole-number parameter would be typed an integer). */
const asFloat = (edge: number) => sql`CAST(${edge} AS DOUBLE PRECISION)`;

/**
 * The metrics' aggregates: every figure comes from one GROUP BY over the scope's rows, so the work stays in
 * the database and the answer's size does not grow with the number of memories. Each scans the environment, so
 * `reads` on SQLite is a connection in a thread of its own (sqlite-read-thread.ts).
 */
export function reflectionMetricsRepository(reads: SqlReads, dialect: Dialect): ReflectionMetricsRepository {
  return {
    async memoryGroups(scope) {
      const rows = await reads.rows<Record<string, unknown>>(sql`
        SELECT "state", "memoryKind", count(*) AS "count", sum("confidence") AS "confidenceSum",
               count("activation") AS "activationCount", sum("activation") AS "activationSum",
               count("staleSince") AS "stale", count("supersededBy") AS "superseded", count("duplicateOfId") AS "duplicates"
        FROM "Memory" WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment}
        GROUP BY "state", "memoryKind"`);
      return rows.map((row) => ({
        state: row.state as TMemoryState,
        memoryKind: row.memoryKind as TMemoryKind,
        count: num(row.count),
        confidenceSum: num(row.confidenceSum),
        activationCount: num(row.activationCount),
        activationSum: num(row.activationSum),
        stale: num(row.stale),
        superseded: num(row.superseded),
        duplicates: num(row.duplicates),
      }));
    },

    async durableBuckets(scope, edges) {
      // Older than an age edge is created at or before that time; the edges come newest first.
      const age = join(edges.createdBy.map((at) => sql`(CASE WHEN "createdAt" <= ${at} THEN 1 ELSE 0 END)`), " + ");
      const rows = await reads.rows<Record<string, unknown>>(sql`
        SELECT "a", "c", "g", count(*) AS "count" FROM (
          SELECT CASE WHEN "activation" IS NULL THEN -1 ELSE ${bucketOf(raw('"activation"'), edges.activation.map(asFloat))} END AS "a",
                 ${bucketOf(raw('"confidence"'), edges.confidence.map(asFloat))} AS "c",
                 ${edges.createdBy.length === 0 ? sql`0` : age} AS "g"
          FROM "Memory" WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment} AND "state" = 'durable'
        ) b
        GROUP BY "a", "c", "g"`);
      return rows.map((row) => ({ activation: num(row.a), confidence: num(row.c), age: num(row.g), count: num(row.count) }));
    },

    async historyByDay(scope, actions, from, through) {
      if (actions.length === 0) return [];
      const day = dialect.utcDay(raw('h."createdAt"'));
      const rows = await reads.rows<Record<string, unknown>>(sql`
        SELECT ${day} AS "day", h."action" AS "key", count(*) AS "count"
        FROM "MemoryHistory" h JOIN "Memory" m ON m."id" = h."memoryId"
        WHERE m."orgId" = ${scope.orgId} AND m."environment" = ${scope.environment}
          AND h."createdAt" >= ${from} AND h."createdAt" <= ${through} AND h."action" IN (${join([...actions])})
        GROUP BY ${day}, h."action"`);
      return rows.map((row) => ({ day: String(row.day), key: String(row.key), count: num(row.count) }));
    },

    async eventsByDay(scope, from, through) {
      const day = dialect.utcDay(raw('"createdAt"'));
      const rows = await reads.rows<Record<string, unknown>>(sql`
        SELECT ${day} AS "day", count(*) AS "count" FROM "ReflectionEvent"
        WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment} AND "createdAt" >= ${from} AND "createdAt" <= ${through}
        GROUP BY ${day}`);
      return rows.map((row) => ({ day: String(row.day), key: "events", count: num(row.count) }));
    },

    async developerEventsByDay(scope, from, through) {
      const day = dialect.utcDay(raw('"receivedAt"'));
      const rows = await reads.rows<Record<string, unknown>>(sql`
        SELECT ${day} AS "day", count(*) AS "count" FROM "BusinessEvent"
        WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment} AND "receivedAt" >= ${from} AND "receivedAt" <= ${through}
        GROUP BY ${day}`);
      return rows.map((row) => ({ day: String(row.day), key: "developerEvents", count: num(row.count) }));
    },
  };
}
