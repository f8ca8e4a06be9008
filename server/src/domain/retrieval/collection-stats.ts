import type { CollectionStats } from "@engram/retrieval";
import { LRUCache } from "lru-cache";
import { scopeKey } from "../kernel/scope-key";
import type { CollectionScope, MemorySearch } from "./ports";

/** How long collection statistics are reused: they move slowly, and counting on every query is costly. */
export const COLLECTION_STATS_TTL_MS = 30_000;
/**
 * A term no memory holds is remembered only briefly: it may be written any moment. Meanwhile nothing is
 * missed, since candidate search always looks up unseen terms; only their weight lags.
 */
export const UNSEEN_TERM_TTL_MS = 5_000;

/**
 * BM25 collection statistics for a query's terms, per organization and environment (each vocabulary
 * weighs its own words); totals and each term's document frequency are cached on their own.
 */
export function collectionStatsCache(memories: Pick<MemorySearch, "collectionTotals" | "documentFrequencies">) {
  const totals = new LRUCache<string, { documents: number; averageLength: number }>({ max: 1_000, ttl: COLLECTION_STATS_TTL_MS });
  const frequencies = new LRUCache<string, number>({ max: 100_000, ttl: COLLECTION_STATS_TTL_MS });

  return async function statsFor(scope: CollectionScope, terms: readonly string[]): Promise<CollectionStats> {
    const scopeId = scopeKey(scope);
    let total = totals.get(scopeId);
    if (!total) {
      total = await memories.collectionTotals(scope);
      totals.set(scopeId, total);
    }
    const documentFrequency = new Map<string, number>();
    const uncounted: string[] = [];
    const termKey = (term: string) => scopeKey(scope, term);
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
