import type { TEnvironment, TMemoryState } from "@engram/contract";
import type { MemoryRepository, MemoryScope } from "../../domain/memory/ports";
import type { HistoryAction, HistoryRecord, MemoryRecord, MemorySourceKind } from "../../domain/memory/records";
import type { MemorySearch, SearchCandidate } from "../../domain/retrieval/ports";
import { newId } from "../../domain/kernel/ids";
import type { PrismaTx } from "../prisma";
import { Prisma } from "../generated/sqlite/client.ts";
import type { FullTextSearch, RawCandidate } from "./memory-search";
import type { DatabaseConfig } from "../config";
import { packedColumns, packedDate, type PackedRow, unpackRows } from "./packed-rows";

type MemoryRow = Awaited<ReturnType<PrismaTx["memory"]["findUniqueOrThrow"]>>;

/** Rows written before use times were kept have none: their encode and last reinforcement stand in. */
function recentUsesOf(row: { recentUses: string; createdAt: Date; lastReinforcedAt: Date | null }): Date[] {
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

function fromRawCandidate(row: RawCandidate): SearchCandidate {
  const { searchText, ...fields } = row;
  return { ...fields, recentUses: recentUsesOf(row), searchTerms: searchText ? searchText.split(" ") : [] };
}

/** Every column a MemoryRecord holds, in the order they are packed (see packed-rows). */
const RECORD_COLUMNS = [
  "id", "orgId", "environment", "agentSlug", "text", "subject", "memoryKind", "confidence", "state", "source", "sourceRequestId",
  "sourceTokenId", "sourceActor", "idempotencyKey", "eventId", "reinforcementCount", "lastReinforcedAt", "recentUses", "createdAt", "updatedAt",
] as const;
const RECORD_TIMESTAMPS = new Set(["lastReinforcedAt", "createdAt", "updatedAt"]);
const PACKED_RECORD = {
  sqlite: packedColumns("sqlite", RECORD_COLUMNS, RECORD_TIMESTAMPS),
  postgres: packedColumns("postgres", RECORD_COLUMNS, RECORD_TIMESTAMPS),
};

function packedRecord(values: unknown[]): MemoryRecord {
  const row = Object.fromEntries(RECORD_COLUMNS.map((column, i) => [column, values[i]])) as Record<(typeof RECORD_COLUMNS)[number], unknown>;
  const createdAt = packedDate(row.createdAt)!;
  const lastReinforcedAt = packedDate(row.lastReinforcedAt);
  return {
    ...(row as Omit<MemoryRecord, "confidence" | "reinforcementCount" | "lastReinforcedAt" | "recentUses" | "createdAt" | "updatedAt">),
    confidence: Number(row.confidence),
    reinforcementCount: Number(row.reinforcementCount),
    lastReinforcedAt,
    recentUses: recentUsesOf({ recentUses: row.recentUses as string, createdAt, lastReinforcedAt }),
    createdAt,
    updatedAt: packedDate(row.updatedAt)!,
  };
}

export function memoryRepository(db: PrismaTx, provider: DatabaseConfig["provider"], search: FullTextSearch): MemoryRepository & MemorySearch {
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
      // On the retrieval path: packed, as the candidates are.
      const rows = await db.$queryRaw<PackedRow[]>`SELECT ${PACKED_RECORD[provider]} FROM "Memory" m WHERE m."id" IN (${Prisma.join([...ids])})`;
      return unpackRows(rows).map(packedRecord);
    },
    async changeState(id, from, to, at) {
      const { count } = await db.memory.updateMany({ where: { id, state: from }, data: { state: to, updatedAt: at } });
      return count === 0 ? null : toRecord(await db.memory.findUniqueOrThrow({ where: { id } }));
    },
    async recordReinforcement(id, at, addUse) {
      // Counting first takes the lock (the row's on Postgres, the database's on SQLite) before the use times are read.
      await db.memory.updateMany({ where: { id }, data: { reinforcementCount: { increment: 1 } } });
      const counted = toRecord(await db.memory.findUniqueOrThrow({ where: { id } }));
      const recentUses = addUse(counted.recentUses);
      await db.memory.updateMany({ where: { id }, data: { lastReinforcedAt: at, recentUses: JSON.stringify(recentUses), updatedAt: at } });
      return { ...counted, lastReinforcedAt: at, recentUses, updatedAt: at };
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
