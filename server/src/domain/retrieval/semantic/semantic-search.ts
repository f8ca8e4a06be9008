import { LRUCache } from "lru-cache";
import type { MemoryScope } from "../../memory/ports";
import type { Embedder } from "../ports";
import type { VectorIndex } from "./vector-index";

export interface SemanticHit {
  memoryId: string;
  similarity: number;
}

export interface SemanticSearchOptions {
  /** Neighbours less similar than this are not offered: every query has nearest neighbours, relevant or not. */
  minSimilarity: number;
  onError: (error: unknown, message: string) => void;
}

/**
 * Memories near a query in meaning: the query is embedded (repeated queries from a small cache) and
 * compared with the scope's vectors. When the embeddings endpoint fails, the answer is no hits, so
 * retrieval goes on lexically rather than failing.
 */
export function semanticSearch(embedder: Embedder, index: VectorIndex, { minSimilarity, onError }: SemanticSearchOptions) {
  const queryVectors = new LRUCache<string, Float32Array>({ max: 1_000 });

  /** `vectorsVersion` is the scope's as retrieval read it: the index catches up when it has moved. */
  return async function search(scope: MemoryScope, query: string, k: number, vectorsVersion: bigint): Promise<SemanticHit[]> {
    try {
      let vector = queryVectors.get(query);
      if (!vector) {
        [vector] = await embedder.embed([query]);
        queryVectors.set(query, vector!);
      }
      return await index.search(scope, vectorsVersion, vector!, k, minSimilarity);
    } catch (error) {
      onError(error, "semantic search failed; answering from lexical search alone");
      return [];
    }
  };
}

export type SemanticSearch = ReturnType<typeof semanticSearch>;
