import type { TEnvironment } from "@engram/contract";
import type { EmbeddingRepository } from "../../domain/retrieval/ports";
import type { PrismaTx } from "../prisma";
import { rowsPast } from "../page-where";

/** Vectors are stored as their float32 components' bytes (little-endian on every platform Node runs on). */
const toBytes = (vector: Float32Array) => new Uint8Array(vector.slice().buffer);
// A copy, so the floats sit on an aligned buffer of their own.
const fromBytes = (bytes: Uint8Array) => new Float32Array(bytes.slice().buffer);

export function embeddingRepository(db: PrismaTx): EmbeddingRepository {
  return {
    async save(vectors, at) {
      if (vectors.length === 0) return;
      // A memory tombstoned while its vector was being computed keeps no vector.
      const live = await db.memory.findMany({ where: { id: { in: vectors.map((v) => v.memoryId) }, state: { not: "tombstoned" } }, select: { id: true } });
      const keep = new Set(live.map((row) => row.id));
      for (const { memoryId, orgId, environment, model, vector } of vectors) {
        if (!keep.has(memoryId)) continue;
        const fields = { orgId, environment, model, vector: toBytes(vector), createdAt: at };
        await db.memoryEmbedding.upsert({ where: { memoryId }, create: { memoryId, ...fields }, update: fields });
      }
    },
    async listSince(scope, model, since, limit) {
      const rows = await db.memoryEmbedding.findMany({
        where: { orgId: scope.orgId, environment: scope.environment, model, ...(since ? { createdAt: { gte: since } } : {}) },
        orderBy: [{ createdAt: "asc" }, { memoryId: "asc" }],
        take: limit,
        include: { memory: { select: { agentSlug: true } } },
      });
      return rows.map((row) => ({
        memoryId: row.memoryId,
        orgId: row.orgId,
        environment: row.environment as TEnvironment,
        model: row.model,
        vector: fromBytes(row.vector),
        agentSlug: row.memory.agentSlug,
        storedAt: row.createdAt,
      }));
    },
    async missing(model, after, limit) {
      const rows = await db.memory.findMany({
        where: {
          state: "durable",
          OR: [{ embedding: { is: null } }, { embedding: { model: { not: model } } }],
          AND: [rowsPast(after && { createdAt: after.createdAt, id: after.memoryId }, "asc")],
        },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take: limit,
        select: { id: true, orgId: true, environment: true, agentSlug: true, subject: true, text: true, createdAt: true },
      });
      return rows.map(({ id, environment, ...row }) => ({ ...row, memoryId: id, environment: environment as TEnvironment }));
    },
    async remove(memoryId) {
      await db.memoryEmbedding.deleteMany({ where: { memoryId } });
    },
  };
}
