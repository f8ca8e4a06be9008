import type { CollectionStats } from "@engram/retrieval";
import { LRUCache } from "lru-cache";
import type { CollectionScope, MemoryRepository } from "./ports";

/** How long collection statistics are reused: they move slowly, and counting on every query is costly. */
export const COLLECTION_STATS_TTL_MS = 30_000;
/**
 * A term no memory holds is remembered only briefly: it may be written any moment. Meanwhile nothing is
 * missed, since candidate search always looks up unseen terms; only their weight lags.
 */
export const UNSEEN_TERM_TTL_MS = 5_000;

/**
 * BM25 collection statistics for a query's terms, counted over the caller's organization and environment
 * (each organization's vocabulary weighs its own words) and remembered briefly. Totals are one cached
 * value per scope; each term's document frequency is cached on its own, so popular terms are rarely
 * counted again.
 */
export function collectionStatsCache(memories: Pick<MemoryRepository, "collectionTotals" | "documentFrequencies">) {
  const totals = new LRUCache<string, { documents: number; averageLength: number }>({ max: 1_000, ttl: COLLECTION_STATS_TTL_MS });
  const frequencies = new LRUCache<string, number>({ max: 100_000, ttl: COLLECTION_STATS_TTL_MS });

  return async function statsFor(scope: CollectionScope, terms: readonly string[]): Promise<CollectionStats> {
    const scopeKey = `${scope.orgId}\u0000${scope.environment}`;
    let total = totals.get(scopeKey);
    if (!total) {
      total = await memories.collectionTotals(scope);
      totals.set(scopeKey, total);
    }
    const documentFrequency = new Map<string, number>();
    const uncounted: string[] = [];
    const termKey = (term: string) => `${scopeKey}\u0000${term}`;
    for (const term of new Set(terms)) {
      const frequency = frequencies.get(termKey(term));
      if (frequency === undefined) uncounted.push(term);
      else documentFrequency.set(term, frequency);
    }
    const counted = await memories.documentFrequencies(scope, uncounted);
    uncounted.forEach((term, i) => {
      documentFrequency.set(term, counted[i]!);
      frequencies.set(termKey(term), counted[i]!, counted[i] === 0 ? { ttl: UNSEEN_TERM_TTL_MS } : undefined);
    });
    return { ...total, documentFrequency };
  };
}
