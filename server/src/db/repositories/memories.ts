import type { TEnvironment, TMemoryState } from "@engram/contract";
import type { MemoryRepository, MemoryScope, SearchCandidate } from "../../domain/ports";
import type { HistoryAction, HistoryRecord, MemoryRecord, MemorySourceKind } from "../../domain/records";
import { newId } from "../../domain/ids";
import type { PrismaTx } from "../prisma";
import type { FullTextSearch, RawCandidate } from "./memory-search";



type MemoryRow = Awaited<ReturnType<PrismaTx["memory"]["findUniqueOrThrow"]>>;

/** Rows written before use times were kept have none: their encode and last reinforcement stand in. */
function recentUsesOf(row: Pick<MemoryRow, "recentUses" | "createdAt" | "lastReinforcedAt">): Date[] {
  const stored = (JSON.parse(row.recentUses) as string[]).map((at) => new Date(at));
  if (stored.length > 0) return stored;
  return row.lastReinforcedAt ? [row.createdAt, row.lastReinforcedAt] : [row.createdAt];
}

function toRecord(row: MemoryRow): MemoryRecord {
  const { searchText: _searchText, searchVersion: _searchVersion, ...fields } = row;
  return {
    ...fields,
    recentUses: recentUsesOf(row),
    environment: row.environment as TEnvironment,
    state: row.state as TMemoryState,
    source: row.source as MemorySourceKind,
  };
}

/** The organization, environment and (for agent callers) the agent's own plus shared memories. */
function visibleIn(scope: MemoryScope) {
  return {
    orgId: scope.orgId,
    environment: scope.environment,
    ...(scope.agentSlug === null ? {} : { OR: [{ agentSlug: scope.agentSlug }, { agentSlug: null }] }),
  };
}

/** Raw rows carry driver types: dates are ISO strings (SQLite) or epoch milliseconds (Postgres). */
function fromRawCandidate(row: RawCandidate): SearchCandidate {
  const createdAt = new Date(row.createdAt as string | number);
  const lastReinforcedAt = row.lastReinforcedAt === null ? null : new Date(row.lastReinforcedAt as string | number);
  return {
    id: row.id,
    subject: row.subject,
    confidence: Number(row.confidence),
    reinforcementCount: Number(row.reinforcementCount),
    recentUses: recentUsesOf({ recentUses: row.recentUses, createdAt, lastReinforcedAt }),
    createdAt,
    searchTerms: row.searchText ? row.searchText.split(" ") : [],
  };
}

export function memoryRepository(db: PrismaTx, search: FullTextSearch): MemoryRepository {
  return {
    async findById(id) {
      const row = await db.memory.findUnique({ where: { id } });
      return row ? toRecord(row) : null;
    },
    async listByState(orgId, environment, state, limit) {
      const rows = await db.memory.findMany({
        where: { orgId, state, ...(environment ? { environment } : {}) },
        orderBy: { createdAt: "asc" },
        take: limit,
      });
      return rows.map(toRecord);
    },
    async findVisible(scope, id) {
      const row = await db.memory.findFirst({ where: { id, ...visibleIn(scope) } });
      return row ? toRecord(row) : null;
    },
    async searchDurable(scope, query) {
      // An empty list of terms matches nothing (and is not valid full-text syntax).
      const lists = query.match === "all" ? query.groups : [query.terms];
      if (lists.length === 0 || lists.some((terms) => terms.length === 0)) return [];
      return (await search.candidates(db, scope, query)).map(fromRawCandidate);
    },
    async durableCandidates(scope, ids) {
      if (ids.length === 0) return [];
      return (await search.byId(db, scope, ids)).map(fromRawCandidate);
    },
    collectionTotals: (scope) => search.stats.totals(db, scope),
    documentFrequencies: async (scope, terms) => (terms.length === 0 ? [] : search.stats.documentFrequencies(db, scope, terms)),
    async findManyByIds(ids) {
      if (ids.length === 0) return [];
      return (await db.memory.findMany({ where: { id: { in: [...ids] } } })).map(toRecord);
    },
    async setState(id, state, at) {
      return toRecord(await db.memory.update({ where: { id }, data: { state, updatedAt: at } }));
    },
    async recordReinforcement(id, at, recentUses) {
      const row = await db.memory.update({
        where: { id },
        data: { reinforcementCount: { increment: 1 }, lastReinforcedAt: at, recentUses: JSON.stringify(recentUses), updatedAt: at },
      });
      return toRecord(row);
    },
    async appendHistory(entry) {
      await db.memoryHistory.create({ data: { ...entry, id: newId("mhe") } });
    },
    async history(memoryId) {
      const rows = await db.memoryHistory.findMany({ where: { memoryId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
      return rows.map(
        (row): HistoryRecord => ({
          memoryId: row.memoryId,
          action: row.action as HistoryAction,
          fromState: row.fromState as TMemoryState | null,
          toState: row.toState as TMemoryState,
          actor: row.actor,
          tokenId: row.tokenId,
          reason: row.reason,
          requestId: row.requestId,
          createdAt: row.createdAt,
        }),
      );
    },
  };
}
