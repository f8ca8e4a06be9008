import type { MemoryRepository, MemoryScope } from "../../../domain/memory/ports";
import { matchesNothing } from "../../../domain/retrieval/candidate-plan";
import type { MemorySearch } from "../../../domain/retrieval/ports";
import type { Dialect } from "../../dialect";
import type { PrismaTx } from "../../prisma";
import { rowsPast } from "../../page-where";
import { join, type PackedRow, sql, unpackRows } from "../../sql";
import { prismaReads, type SqlReads } from "../../sql-reads";
import { appendHistory, historyOf } from "../memory-history";
import { collectionChanges, collectionState, newestDurable } from "./memory-collection";
import { MEMORY_TIMESTAMPS, memoryRecord, packedMemoryRecord, RECORD_COLUMNS } from "./memory-table";
import { countUse } from "./memory-uses";

/** The organization, environment and (for agent callers) the agent's own plus shared memories. */
function visibleIn(scope: MemoryScope) {
  return {
    orgId: scope.orgId,
    environment: scope.environment,
    ...(scope.agentSlug === null ? {} : { OR: [{ agentSlug: scope.agentSlug }, { agentSlug: null }] }),
  };
}

/**
 * Memories one by one, and retrieval's full-text reads (through `reads`: the driver's own prepared statements
 * outside a transaction). New memories are inserted by a batch (memoryRows).
 */
export function memoryRepository(db: PrismaTx, dialect: Dialect, reads: SqlReads = prismaReads(db)): MemoryRepository & MemorySearch {
  const search = dialect.memorySearch;
  const packedRecord = dialect.packRow(RECORD_COLUMNS, MEMORY_TIMESTAMPS);
  const reading = { packRow: dialect.packRow, countable: search.countable };
  return {
    async findById(id) {
      const row = await db.memory.findUnique({ where: { id } });
      return row ? memoryRecord(row) : null;
    },
    async listByState(orgId, environment, state, limit) {
      const rows = await db.memory.findMany({
        where: { orgId, state, ...(environment ? { environment } : {}) },
        orderBy: { createdAt: "asc" },
        take: limit,
      });
      return rows.map(memoryRecord);
    },
    async listNewest({ orgId, environment, state }, before, limit) {
      const rows = await db.memory.findMany({
        where: {
          orgId,
          environment,
          state,
          ...rowsPast(before, "desc"),
        },
        // Along the scope index (orgId, environment, state, createdAt, id): no sort, stops at `limit`.
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: limit,
      });
      return rows.map(memoryRecord);
    },
    async findVisible(scope, id) {
      const row = await db.memory.findFirst({ where: { id, ...visibleIn(scope) } });
      return row ? memoryRecord(row) : null;
    },
    searchDurable: async (scope, query) => (matchesNothing(query) ? [] : search.candidates(reads, scope, query)),
    async durableCandidates(scope, ids) {
      if (ids.length === 0) return [];
      return search.byId(reads, scope, ids);
    },
    neighbours: async (scope, anchors, within) => (anchors.length === 0 ? [] : search.neighbours(reads, scope, anchors, within)),
    collectionState: (scope) => collectionState(reads, scope),
    documentFrequencies: async (scope, terms) =>
      terms.length === 0 ? { version: (await collectionState(reads, scope)).version, documents: [] } : search.documentFrequencies(reads, scope, terms),
    collectionChanges: (scope, range) => collectionChanges(reads, scope, range, reading),
    newestDurable: (scope, limit, after) => newestDurable(reads, reading, scope, limit, after),
    async findManyByIds(ids) {
      if (ids.length === 0) return [];
      // On the retrieval path: packed, as the candidates are.
      const rows = await reads.rows<PackedRow>(sql`SELECT ${packedRecord} FROM "Memory" m WHERE m."id" IN (${join([...ids])})`);
      return unpackRows(rows).map(packedMemoryRecord);
    },
    async changeState(id, from, to, at) {
      const { count } = await db.memory.updateMany({ where: { id, state: from }, data: { state: to, updatedAt: at } });
      return count === 0 ? null : memoryRecord(await db.memory.findUniqueOrThrow({ where: { id } }));
    },
    async recordReinforcement(id, at, addUse) {
      const counted = await countUse(db, { id }, at, addUse);
      // Memories are never deleted, and the caller found this one.
      if (!counted) throw new Error(`memory ${id} is gone`);
      return memoryRecord(counted);
    },
    appendHistory: (entry) => appendHistory(db, entry),
    history: (memoryId, after, limit) => historyOf(db, memoryId, after, limit),
    async supersession(id) {
      const memory = await db.memory.findUnique({ where: { id }, select: { state: true, supersededBy: true } });
      if (memory?.state !== "durable" || memory.supersededBy === null) return null;
      const event = await db.reflectionEvent.findFirst({ where: { memoryId: id, action: "superseded" }, orderBy: { createdAt: "desc" }, select: { details: true } });
      const previous = event?.details ? (JSON.parse(event.details) as { previousConfidence?: unknown }).previousConfidence : undefined;
      return { supersededBy: memory.supersededBy, previousConfidence: typeof previous === "number" ? previous : null };
    },
    async dismissSupersession(id, supersededBy, confidence, at) {
      const { count } = await db.memory.updateMany({
        where: { id, state: "durable", supersededBy },
        data: { supersededBy: null, supersessionDismissedBy: supersededBy, confidence, updatedAt: at },
      });
      return count === 0 ? null : memoryRecord(await db.memory.findUniqueOrThrow({ where: { id } }));
    },
  };
}
