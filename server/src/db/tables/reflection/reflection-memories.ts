import type { TEnvironment, TMemoryState } from "@engram/contract";
import { recordUse } from "@engram/retrieval";
import { newId } from "../../../domain/kernel/ids";
import type { PagePosition, ReflectionChange, ReflectionMemoryRepository } from "../../../domain/reflection/ports";
import type { ReflectionMemory, ReflectionScope } from "../../../domain/reflection/records";
import type { Dialect } from "../../dialect";
import type { PrismaTx } from "../../prisma";
import { empty, insertStatements, join, packedDate, raw, type Sql, sql } from "../../sql";
import { prismaReads, type SqlReads } from "../../sql-reads";
import { appendHistory } from "../memory-history";
import { recentUsesOf } from "../memories/memory-table";
import { countUse } from "../memories/memory-uses";
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

async function recordEvent(db: PrismaTx, scope: ReflectionScope, runId: string, change: ReflectionChange, at: Date): Promise<void> {
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
  await db.$executeRaw(statement!);
}

const HISTORY_ACTION_FOR_STATE: Partial<Record<TMemoryState, "suppressed" | "promoted" | "rejected">> = {
  suppressed: "suppressed",
  durable: "promoted",
  tombstoned: "rejected",
};

export function reflectionMemoryRepository(db: PrismaTx, dialect: Dialect, reads: SqlReads = prismaReads(db)): ReflectionMemoryRepository {
  const inScope = (scope: ReflectionScope) => ({ orgId: scope.orgId, environment: scope.environment as TEnvironment });
  return {
    async page(scope, states, after, limit, maxBytes = Infinity) {
      return (await reads.rows<PageRow>(pageStatement(scope, states, after, limit, maxBytes))).map(pagedMemory);
    },

    async changeState(scope, runId, change, at) {
      const { count } = await db.memory.updateMany({
        where: { id: change.memoryId, ...inScope(scope), state: change.from },
        data: {
          state: change.to,
          updatedAt: at,
          ...(change.links?.duplicateOfId === undefined ? {} : { duplicateOfId: change.links.duplicateOfId }),
          ...(change.links?.supersededBy === undefined ? {} : { supersededBy: change.links.supersededBy }),
        },
      });
      if (count === 0) return false;
      await appendHistory(db, historyOf(scope, runId, change, change.from, change.to, HISTORY_ACTION_FOR_STATE[change.to] ?? "flagged", at));
      await recordEvent(db, scope, runId, change, at);
      return true;
    },

    async lock(scope, memoryIds) {
      // SQLite has no row locks: a writing transaction holds the whole database.
      if (dialect.provider !== "postgres" || memoryIds.length === 0) return;
      // The rows are locked as the sort returns them, as an update of theirs would lock them: foreign-key checks
      // (a vector saved for one of them) still pass, as they pass an update.
      await db.$queryRaw`
        SELECT "id" FROM "Memory" WHERE "id" IN (${join([...new Set(memoryIds)])}) AND "orgId" = ${scope.orgId} AND "environment" = ${scope.environment}
        ORDER BY "id" FOR NO KEY UPDATE`;
    },

    async reinforce(scope, runId, change, at) {
      const counted = await countUse(db, { id: change.memoryId, ...inScope(scope), state: "durable" }, at, (uses) => recordUse(uses, at));
      if (!counted) return false;
      await appendHistory(db, historyOf(scope, runId, change, "durable", "durable", "reinforced", at));
      await recordEvent(db, scope, runId, change, at);
      return true;
    },

    async flag(scope, runId, change, at) {
      const { count } = await db.memory.updateMany({
        where: { id: change.memoryId, ...inScope(scope), state: change.state },
        data: { ...change.set, updatedAt: at },
      });
      if (count === 0) return false;
      await appendHistory(db, historyOf(scope, runId, change, change.state, change.state, "flagged", at));
      await recordEvent(db, scope, runId, change, at);
      return true;
    },

    async setActivations(scope, values, at) {
      if (values.length === 0) return 0;
      // One statement for the batch: a CASE over the ids runs alike on both databases. The cast types the
      // parameters, which Postgres would otherwise take for text. The scope is checked in an expression no
      // index serves, so SQLite finds the rows by their keys instead of scanning the scope's index.
      const cases = join(values.map(({ id, activation }) => sql`WHEN ${id} THEN CAST(${activation} AS DOUBLE PRECISION)`), " ");
      return db.$executeRaw`
        UPDATE "Memory" SET "activation" = CASE "id" ${cases} END, "activationAt" = ${at}
        WHERE "id" IN (${join(values.map((v) => v.id))}) AND "orgId" || '' = ${scope.orgId} AND "environment" = ${scope.environment}`;
    },

    async workflowStates(scope) {
      const rows = await db.workflowState.findMany({ where: inScope(scope), select: { workflow: true, subject: true, state: true, lastEventId: true, updatedAt: true } });
      return rows;
    },

    async eventOccurrences(scope, eventIds) {
      const counts = new Map<string, number>();
      if (eventIds.length === 0) return counts;
      const events = await db.businessEvent.findMany({ where: { ...inScope(scope), id: { in: [...eventIds] } }, select: { id: true, type: true, subject: true } });
      // One grouped count for the batch. Events without a subject are about nothing in particular: each counts once.
      const about = events.filter((event) => event.subject !== null);
      const types = [...new Set(about.map((event) => event.type))];
      const subjects = [...new Set(about.map((event) => event.subject!))];
      const groups =
        about.length === 0
          ? []
          : await db.businessEvent.groupBy({ by: ["type", "subject"], where: { ...inScope(scope), type: { in: types }, subject: { in: subjects } }, _count: { _all: true } });
      const counted = new Map(groups.map((group) => [JSON.stringify([group.type, group.subject]), group._count._all]));
      for (const event of events) counts.set(event.id, counted.get(JSON.stringify([event.type, event.subject])) ?? 1);
      return counts;
    },
  };
}
