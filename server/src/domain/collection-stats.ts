import type { CollectionStats } from "@engram/retrieval";
import { LRUCache } from "lru-cache";
import type { MemoryRepository } from "./ports";

/** How long collection statistics are reused: they move slowly, and counting on every query is costly. */
export const COLLECTION_STATS_TTL_MS = 30_000;

/**
 * BM25 collection statistics for a query's terms, from the whole index, remembered briefly. Totals are
 * one cached value; each term's document frequency is cached on its own, so popular terms are rarely
 * counted again.
 */
export function collectionStatsCache(memories: Pick<MemoryRepository, "collectionTotals" | "documentFrequency">) {
  const totals = new LRUCache<"totals", { documents: number; averageLength: number }>({ max: 1, ttl: COLLECTION_STATS_TTL_MS });
  const frequencies = new LRUCache<string, number>({ max: 50_000, ttl: COLLECTION_STATS_TTL_MS });

  return async function statsFor(terms: readonly string[]): Promise<CollectionStats> {
    let total = totals.get("totals");
    if (!total) {
      total = await memories.collectionTotals();
      totals.set("totals", total);
    }
    const documentFrequency = new Map<string, number>();
    for (const term of terms) {
      let frequency = frequencies.get(term);
      if (frequency === undefined) {
        frequency = await memories.documentFrequency(term);
        // A term no memory holds yet is counted again next time: it may be written any moment.
        if (frequency > 0) frequencies.set(term, frequency);
      }
      documentFrequency.set(term, frequency);
    }
    return { ...total, documentFrequency };
  };
}
