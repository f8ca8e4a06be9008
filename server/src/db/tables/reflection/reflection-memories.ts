import type { TMemoryState } from "@engram/contract";
import { recordUse } from "@engram/retrieval";
import { newId } from "../../../domain/kernel/ids";
import type { PagePosition, ReflectionChange, ReflectionMemoryRepository } from "../../../domain/reflection/ports";
import type { ReflectionMemory, ReflectionScope } from "../../../domain/reflection/records";
import type { Dialect } from "../../dialect";
import { empty, insertStatements, join, packedDate, raw, type Sql, sql } from "../../sql";
import type { SqlReads } from "../../sql-reads";
import type { SqlSession } from "../../sql-session";
import { entryTime, historyRows, memoryHistoryTable } from "../memory-history";
import { recentUsesOf } from "../memories/memory-table";
import { reflectionEventTable } from "./reflection-events";

/** What a page reads of each memory, in ReflectionMemory's own names. */
const PAGE_COLUMNS = [
  "id", "agentSlug", "subject", "text", "memoryKind", "confidence", "state", "source", "eventId", "searchText", "reinforcementCount",
  "lastReinforcedAt", "recentUses", "createdAt", "duplicateOfId", "supersededBy", "supersessionDismissedBy", "staleSince", "activation", "activationAt",
] as const satisfies ReadonlyArray<keyof ReflectionMemory>;

type PageRow = Record<(typeof PAGE_COLUMNS)[number], unknown>;

/** The page's columns as the statement selects them (alias m). */
const PAGE_SELECT = raw(PAGE_COLUMNS.map((column) => `m."${column}"`).join(", "));

/** A page's row as reflection reads it; numbers are read as numbers whatever type the driver gave them. */
function pagedMemory(row: PageRow): ReflectionMemory {
  const createdAt = packedDate(row.createdAt)!;
  const lastReinforcedAt = packedDate(row.lastReinforcedAt);
  return {
    ...(row as Omit<ReflectionMemory, "confidence" | "reinforcementCount" | "lastReinforcedAt" | "recentUses" | "createdAt" | "staleSince" | "activation" | "activationAt">),
    confidence: Number(row.confidence),
    reinforcementCount: Number(row.reinforcementCount),
    lastReinforcedAt,
    recentUses: recentUsesOf({ recentUses: row.recentUses as string, createdAt, lastReinforcedAt }),
    createdAt,
    staleSince: packedDate(row.staleSince),
    activation: row.activation === null ? null : Number(row.activation),
    activationAt: packedDate(row.activationAt),
  };
}

/**
 * One page as one statement, so nothing changes between its sizes and its rows: the leading `limit` rows after
 * `after` are sized from their headers (neither backend reads a text to measure its bytes), and only those within
 * `maxBytes` (the first whatever its size) are joined back for their columns.
 */
function pageStatement(scope: ReflectionScope, states: readonly TMemoryState[], after: PagePosition | null, limit: number, maxBytes: number): Sql {
  return sql`
    SELECT ${PAGE_SELECT} FROM (
      SELECT "id", ROW_NUMBER() OVER (ORDER BY "createdAt", "id") AS "position",
        SUM("size") OVER (ORDER BY "createdAt", "id" ROWS UNBOUNDED PRECEDING) AS "bytes"
      FROM (
        SELECT "id", "createdAt", octet_length("text") + octet_length("searchText") AS "size" FROM "Memory"
        WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment} AND "state" IN (${join([...states])})
          ${after ? sql`AND ("createdAt", "id") > (${after.createdAt}, ${after.id})` : empty}
        ORDER BY "createdAt", "id" LIMIT ${limit}
      ) AS "leading"
    ) AS "sized" JOIN "Memory" m ON m."id" = "sized"."id"
    WHERE "sized"."position" = 1 OR "sized"."bytes" <= ${Math.min(maxBytes, Number.MAX_SAFE_INTEGER)}
    ORDER BY "sized"."position"`;
}

/** Reflection's history rows: the actor is reflection itself, the reason the event's. */
const historyOf = (scope: ReflectionScope, runId: string, change: ReflectionChange, from: TMemoryState, to: TMemoryState, action: "suppressed" | "promoted" | "rejected" | "reinforced" | "flagged", at: Date) => ({
  memoryId: change.memoryId,
  action,
  fromState: from,
  toState: to,
  actor: "reflection",
  tokenId: null,
  reason: change.reason,
  requestId: runId,
  createdAt: at,
});

/** The reflection event that explains a change, as one insert. */
function eventStatement(scope: ReflectionScope, runId: string, change: ReflectionChange, at: Date): Sql {
  const [statement] = insertStatements(reflectionEventTable, [
    {
      id: newId("rfe"),
      orgId: scope.orgId,
      environment: scope.environment,
      runId,
      process: change.process,
      action: change.action,
      memoryId: change.memoryId,
      relatedId: change.relatedId ?? null,
      reason: change.reason,
      details: change.details === undefined ? null : JSON.stringify(change.details),
      createdAt: at,
    },
  ]);
  return statement!;
}

/** Column assignments for an UPDATE, of the values given (undefined ones are left as they are). */
function assignments(values: Record<string, unknown>): Sql {
  const given = Object.entries(values).filter(([, value]) => value !== undefined);
  return join(given.map(([column, value]) => sql`${raw(`"${column}"`)} = ${value}`));
}

const HISTORY_ACTION_FOR_STATE: Partial<Record<TMemoryState, "suppressed" | "promoted" | "rejected">> = {
  suppressed: "suppressed",
  durable: "promoted",
  tombstoned: "rejected",
};

/**
 * Reflection's reads and changes on `session` (the driver's, docs/reflection.md), one statement each; its pages
 * on `pages` (on SQLite the store's read thread).
 */
export function reflectionMemoryRepository(session: SqlSession, dialect: Dialect, pages: SqlReads = session): ReflectionMemoryRepository {
  const inScope = (scope: ReflectionScope, id: string) => sql`"id" = ${id} AND "orgId" = ${scope.orgId} AND "environment" = ${scope.environment}`;
  /** The history row and the event of a change that applied. */
  async function explain(scope: ReflectionScope, runId: string, change: ReflectionChange, history: ReturnType<typeof historyOf>, at: Date): Promise<void> {
    // As the API's changes write theirs (appendHistory): after the latest entry, the memory's updatedAt moved with it.
    const entryAt = await entryTime(session, change.memoryId, history.createdAt);
    if (entryAt !== history.createdAt) {
      await session.changes(sql`UPDATE "Memory" SET "updatedAt" = ${entryAt} WHERE "id" = ${change.memoryId} AND "updatedAt" = ${history.createdAt}`);
    }
    for (const statement of insertStatements(memoryHistoryTable, historyRows([{ ...history, createdAt: entryAt }]))) await session.changes(statement);
    await session.changes(eventStatement(scope, runId, change, at));
  }
  return {
    async page(scope, states, after, limit, maxBytes = Infinity) {
      return (await pages.rows<PageRow>(pageStatement(scope, states, after, limit, maxBytes))).map(pagedMemory);
    },

    async changeState(scope, runId, change, at) {
      const set = assignments({ state: change.to, updatedAt: at, duplicateOfId: change.links?.duplicateOfId, supersededBy: change.links?.supersededBy });
      const changed = await session.changes(sql`UPDATE "Memory" SET ${set} WHERE ${inScope(scope, change.memoryId)} AND "state" = ${change.from}`);
      if (changed === 0) return false;
      await explain(scope, runId, change, historyOf(scope, runId, change, change.from, change.to, HISTORY_ACTION_FOR_STATE[change.to] ?? "flagged", at), at);
      return true;
    },

    async lock(scope, memoryIds) {
      // SQLite has no row locks: a writing transaction holds the whole database.
      if (dialect.provider !== "postgres" || memoryIds.length === 0) return;
      // The rows are locked as the sort returns them, as an update of theirs would lock them: foreign-key checks
      // (a vector saved for one of them) still pass, as they pass an update.
      await session.rows(sql`
        SELECT "id" FROM "Memory" WHERE "id" IN (${join([...new Set(memoryIds)])}) AND "orgId" = ${scope.orgId} AND "environment" = ${scope.environment}
        ORDER BY "id" FOR NO KEY UPDATE`);
    },

    async reinforce(scope, runId, change, at) {
      // The first update takes the row (on Postgres its lock) and answers what the second needs, as the API's
      // reinforcement does.
      const [touched] = await session.rows<{ recentUses: string; createdAt: unknown; lastReinforcedAt: unknown }>(sql`
        UPDATE "Memory" SET "updatedAt" = ${at} WHERE ${inScope(scope, change.memoryId)} AND "state" = 'durable'
        RETURNING "recentUses", "createdAt", "lastReinforcedAt"`);
      if (!touched) return false;
      const uses = recentUsesOf({ recentUses: touched.recentUses, createdAt: packedDate(touched.createdAt)!, lastReinforcedAt: packedDate(touched.lastReinforcedAt) });
      // The use is dated as its history entry will be, as the API's reinforcement dates it.
      const usedAt = await entryTime(session, change.memoryId, at);
      await session.changes(sql`
        UPDATE "Memory" SET "reinforcementCount" = "reinforcementCount" + 1, "lastReinforcedAt" = ${usedAt}, "recentUses" = ${JSON.stringify(recordUse(uses, usedAt))},
          "updatedAt" = ${usedAt}
        WHERE "id" = ${change.memoryId}`);
      await explain(scope, runId, change, historyOf(scope, runId, change, "durable", "durable", "reinforced", usedAt), at);
      return true;
    },

    async flag(scope, runId, change, at) {
      const set = assignments({ ...change.set, updatedAt: at });
      const changed = await session.changes(sql`UPDATE "Memory" SET ${set} WHERE ${inScope(scope, change.memoryId)} AND "state" = ${change.state}`);
      if (changed === 0) return false;
      await explain(scope, runId, change, historyOf(scope, runId, change, change.state, change.state, "flagged", at), at);
      return true;
    },

    async setActivations(scope, values, at) {
      if (values.length === 0) return 0;
      // One statement for the batch: a CASE over the ids runs alike on both databases. The cast types the
      // parameters, which Postgres would otherwise take for text. The scope is checked in an expression no
      // index serves, so SQLite finds the rows by their keys instead of scanning the scope's index.
      const cases = join(values.map(({ id, activation }) => sql`WHEN ${id} THEN CAST(${activation} AS DOUBLE PRECISION)`), " ");
      return session.changes(sql`
        UPDATE "Memory" SET "activation" = CASE "id" ${cases} END, "activationAt" = ${at}
        WHERE "id" IN (${join(values.map((v) => v.id))}) AND "orgId" || '' = ${scope.orgId} AND "environment" = ${scope.environment}`);
    },

    async workflowStates(scope) {
      const rows = await session.rows<{ workflow: string; subject: string; state: string; lastEventId: string; updatedAt: unknown }>(sql`
        SELECT "workflow", "subject", "state", "lastEventId", "updatedAt" FROM "WorkflowState"
        WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment}`);
      return rows.map((row) => ({ ...row, updatedAt: packedDate(row.updatedAt)! }));
    },

    async eventOccurrences(scope, eventIds) {
      const counts = new Map<string, number>();
      if (eventIds.length === 0) return counts;
      const inEnvironment = sql`"orgId" = ${scope.orgId} AND "environment" = ${scope.environment}`;
      const events = await session.rows<{ id: string; type: string; subject: string | null }>(sql`
        SELECT "id", "type", "subject" FROM "BusinessEvent" WHERE ${inEnvironment} AND "id" IN (${join([...new Set(eventIds)])})`);
      // One grouped count for the batch. Events without a subject are about nothing in particular: each counts once.
      const about = events.filter((event) => event.subject !== null);
      const types = [...new Set(about.map((event) => event.type))];
      const subjects = [...new Set(about.map((event) => event.subject!))];
      const groups =
        about.length === 0
          ? []
          : await session.rows<{ type: string; subject: string; occurrences: unknown }>(sql`
              SELECT "type", "subject", COUNT(*) AS "occurrences" FROM "BusinessEvent"
              WHERE ${inEnvironment} AND "type" IN (${join(types)}) AND "subject" IN (${join(subjects)})
              GROUP BY "type", "subject"`);
      const counted = new Map(groups.map((group) => [JSON.stringify([group.type, group.subject]), Number(group.occurrences)]));
      for (const event of events) counts.set(event.id, counted.get(JSON.stringify([event.type, event.subject])) ?? 1);
      return counts;
    },
  };
}
