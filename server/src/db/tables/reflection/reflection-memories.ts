import type { TEnvironment, TMemoryKind, TMemoryState } from "@engram/contract";
import { recordUse } from "@engram/retrieval";
import { newId } from "../../../domain/kernel/ids";
import type { ReflectionChange, ReflectionMemoryRepository } from "../../../domain/reflection/ports";
import type { ReflectionMemory, ReflectionScope } from "../../../domain/reflection/records";
import type { PrismaTx } from "../../prisma";
import { join, sql } from "../../sql";
import { appendHistory } from "../memory-history";

type MemoryRow = Awaited<ReturnType<PrismaTx["memory"]["findUniqueOrThrow"]>>;

const COLUMNS = {
  id: true, agentSlug: true, subject: true, text: true, memoryKind: true, confidence: true, state: true, source: true, eventId: true,
  searchText: true, reinforcementCount: true, lastReinforcedAt: true, recentUses: true, createdAt: true, duplicateOfId: true,
  supersededBy: true, staleSince: true, activation: true, activationAt: true,
} as const;

function toMemory(row: Pick<MemoryRow, keyof typeof COLUMNS>): ReflectionMemory {
  return {
    ...row,
    memoryKind: row.memoryKind as TMemoryKind,
    state: row.state as TMemoryState,
    source: row.source as ReflectionMemory["source"],
    recentUses: (JSON.parse(row.recentUses) as string[]).map((at) => new Date(at)),
  };
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
  await db.reflectionEvent.create({
    data: {
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
  });
}

const HISTORY_ACTION_FOR_STATE: Partial<Record<TMemoryState, "suppressed" | "promoted" | "rejected">> = {
  suppressed: "suppressed",
  durable: "promoted",
  tombstoned: "rejected",
};

export function reflectionMemoryRepository(db: PrismaTx): ReflectionMemoryRepository {
  const inScope = (scope: ReflectionScope) => ({ orgId: scope.orgId, environment: scope.environment as TEnvironment });
  return {
    async page(scope, states, after, limit) {
      const rows = await db.memory.findMany({
        where: {
          ...inScope(scope),
          state: { in: [...states] },
          ...(after ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] } : {}),
        },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take: limit,
        select: COLUMNS,
      });
      return rows.map(toMemory);
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

    async reinforce(scope, runId, change, at) {
      // Counting first takes the lock, as a person's reinforce does, so concurrent uses are not lost.
      const { count } = await db.memory.updateMany({ where: { id: change.memoryId, ...inScope(scope), state: "durable" }, data: { reinforcementCount: { increment: 1 } } });
      if (count === 0) return false;
      const row = await db.memory.findUniqueOrThrow({ where: { id: change.memoryId }, select: { recentUses: true } });
      const uses = recordUse((JSON.parse(row.recentUses) as string[]).map((use) => new Date(use)), at);
      await db.memory.updateMany({ where: { id: change.memoryId }, data: { lastReinforcedAt: at, recentUses: JSON.stringify(uses), updatedAt: at } });
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
      // One statement for the batch: a CASE over the ids runs alike on both databases.
      const cases = join(values.map(({ id, activation }) => sql`WHEN ${id} THEN ${activation}`), " ");
      return db.$executeRaw`
        UPDATE "Memory" SET "activation" = CASE "id" ${cases} END, "activationAt" = ${at}
        WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment} AND "id" IN (${join(values.map((v) => v.id))})`;
    },

    async workflowStates(scope) {
      const rows = await db.workflowState.findMany({ where: inScope(scope), select: { workflow: true, subject: true, state: true, lastEventId: true, updatedAt: true } });
      return rows;
    },

    async eventOccurrences(scope, eventIds) {
      const counts = new Map<string, number>();
      if (eventIds.length === 0) return counts;
      const events = await db.businessEvent.findMany({ where: { ...inScope(scope), id: { in: [...eventIds] } }, select: { id: true, type: true, subject: true } });
      for (const event of events) {
        const occurrences = await db.businessEvent.count({ where: { ...inScope(scope), type: event.type, subject: event.subject } });
        counts.set(event.id, occurrences);
      }
      return counts;
    },
  };
}
