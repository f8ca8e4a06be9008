import { nearest } from "@engram/retrieval";
import { LRUCache } from "lru-cache";
import { scopeKey } from "../../kernel/scope-key";
import type { MemoryScope } from "../../memory/ports";
import type { EmbeddingRepository } from "../ports";
import type { StoredVector } from "./embedding-writer";

/** Scopes (organization + environment) kept in memory at once; the least recently searched go first. */
const MAX_SCOPES = 64;
const PAGE = 5_000;
/** Re-read a little before the last vector seen: a concurrent writer may commit an earlier timestamp late. */
const REFRESH_OVERLAP_MS = 10_000;

/** One scope's vectors, end to end in one growing Float32Array, with each memory's agent. */
class ScopeVectors {
  private rows = new Float32Array(0);
  private ids: string[] = [];
  private agents: Array<string | null> = [];
  private readonly positions = new Map<string, number>();
  private dimensions = 0;
  storedUntil: Date | null = null;
  /** The scope's vectors version this copy is current with, and the catching up under way. */
  version = -1n;
  refreshing: Promise<void> | null = null;

  put({ memoryId, agentSlug, vector }: Pick<StoredVector, "memoryId" | "agentSlug" | "vector">): void {
    if (this.dimensions === 0) this.dimensions = vector.length;
    // Vectors of another length come from a reconfigured model: they cannot be compared, so are skipped.
    if (vector.length !== this.dimensions) return;
    let position = this.positions.get(memoryId);
    if (position === undefined) {
      position = this.ids.length;
      if ((position + 1) * this.dimensions > this.rows.length) {
        const grown = new Float32Array(Math.max(1024 * this.dimensions, this.rows.length * 2));
        grown.set(this.rows);
        this.rows = grown;
      }
      this.ids.push(memoryId);
      this.agents.push(agentSlug);
      this.positions.set(memoryId, position);
    }
    this.rows.set(vector, position * this.dimensions);
  }

  search(query: Float32Array, agentSlug: string | null, k: number, minSimilarity: number) {
    if (query.length !== this.dimensions) return [];
    const include = agentSlug === null ? undefined : (row: number) => this.agents[row] === null || this.agents[row] === agentSlug;
    return nearest(query, this.rows, this.ids.length, k, { minSimilarity, include }).map(({ index, similarity }) => ({ memoryId: this.ids[index]!, similarity }));
  }
}

/**
 * The vectors of each scope, held in memory for exact nearest-neighbour search and brought up to date from
 * the database whenever the scope's vectors version has moved (another process stored some). States are
 * not tracked here: retrieval reads the hits' rows and keeps only the durable ones in scope.
 */
export function vectorIndex(embeddings: Pick<EmbeddingRepository, "listSince">, model: string) {
  const scopes = new LRUCache<string, ScopeVectors>({ max: MAX_SCOPES });

  /** Reads the vectors stored since the last one seen; searches meanwhile wait for it rather than see a part. */
  async function catchUp(scope: MemoryScope, vectors: ScopeVectors, version: bigint): Promise<void> {
    let since = vectors.storedUntil ? new Date(vectors.storedUntil.getTime() - REFRESH_OVERLAP_MS) : null;
    for (;;) {
      const page = await embeddings.listSince(scope, model, since, PAGE);
      for (const row of page) vectors.put(row);
      if (page.length > 0) since = vectors.storedUntil = page.at(-1)!.storedAt;
      if (page.length < PAGE) break;
    }
    vectors.version = version;
  }

  async function refreshed(scope: MemoryScope, version: bigint): Promise<ScopeVectors> {
    const key = scopeKey(scope);
    let vectors = scopes.get(key);
    if (!vectors) {
      vectors = new ScopeVectors();
      scopes.set(key, vectors);
    }
    while (vectors.version < version) {
      const current = vectors;
      current.refreshing ??= catchUp(scope, current, version).finally(() => (current.refreshing = null));
      await current.refreshing;
    }
    return vectors;
  }

  return {
    /** The `k` memories in scope (and within the agent's boundary) whose vectors are nearest `query`. */
    async search(scope: MemoryScope, version: bigint, query: Float32Array, k: number, minSimilarity: number) {
      return (await refreshed(scope, version)).search(query, scope.agentSlug, k, minSimilarity);
    },
    /** Vectors this process just stored, searchable before the next refresh. */
    add(vectors: readonly StoredVector[]): void {
      for (const vector of vectors) scopes.get(scopeKey(vector))?.put(vector);
    },
  };
}

export type VectorIndex = ReturnType<typeof vectorIndex>;
