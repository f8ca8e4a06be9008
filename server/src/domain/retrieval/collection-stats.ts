import type { CollectionStats } from "@engram/retrieval";
import { LRUCache } from "lru-cache";
import { scopeKey } from "../kernel/scope-key";
import type { CollectionScope, CollectionState, MemorySearch } from "./ports";

/** One scope's document frequencies, valid while its collection version stays the one they were counted at. */
interface CountedTerms {
  version: bigint;
  frequencies: Map<string, number>;
}

/** Terms remembered per scope: a query's terms repeat, and a bound keeps a stream of novel words from growing it. */
const MAX_TERMS_PER_SCOPE = 20_000;

/** The statistics of one retrieval: the scope's state as read once, and its terms' document frequencies. */
export interface CollectionSnapshot {
  state: CollectionState;
  /** BM25 statistics for these terms, counted at this snapshot's version (from the cache when counted before). */
  statsFor(terms: readonly string[]): Promise<CollectionStats>;
}

/**
 * BM25 collection statistics per organization and environment (each vocabulary weighs its own words). The
 * totals are read with every retrieval (one keyed row the database keeps exact); document frequencies are
 * counted once per term and reused until the scope's version changes, whichever process wrote.
 */
export function collectionStatsCache(memories: Pick<MemorySearch, "collectionState" | "documentFrequencies">) {
  const counted = new LRUCache<string, CountedTerms>({ max: 1_000 });

  return async function snapshot(scope: CollectionScope): Promise<CollectionSnapshot> {
    const state = await memories.collectionState(scope);
    const scopeId = scopeKey(scope);
    let terms = counted.get(scopeId);
    if (!terms || terms.version !== state.version) {
      terms = { version: state.version, frequencies: new Map() };
      counted.set(scopeId, terms);
    }
    const { frequencies } = terms;
    return {
      state,
      async statsFor(wanted) {
        const documentFrequency = new Map<string, number>();
        const uncounted: string[] = [];
        for (const term of new Set(wanted)) {
          const frequency = frequencies.get(term);
          if (frequency === undefined) uncounted.push(term);
          else documentFrequency.set(term, frequency);
        }
        const fresh = await memories.documentFrequencies(scope, uncounted);
        if (frequencies.size + uncounted.length > MAX_TERMS_PER_SCOPE) frequencies.clear();
        uncounted.forEach((term, i) => {
          documentFrequency.set(term, fresh[i]!);
          frequencies.set(term, fresh[i]!);
        });
        return { documents: state.documents, averageLength: state.averageLength, documentFrequency };
      },
    };
  };
}
