import type { CollectionStats } from "@engram/retrieval";
import { LRUCache } from "lru-cache";
import type { Clock } from "../kernel/clock";
import { scopeKey } from "../kernel/scope-key";
import type { CollectionScope, CollectionState, MemorySearch } from "./ports";

/** A term's document frequency as counted, with the scope's version and the time it was counted at. */
interface CountedTerm {
  documents: number;
  version: bigint;
  countedAt: number;
}

/** Terms remembered per scope: a query's terms repeat, and a bound keeps a stream of novel words from growing it. */
const MAX_TERMS_PER_SCOPE = 20_000;
/**
 * A term held by at least this many memories is counted again after a write only once COMMON_TERM_TTL_MS
 * has passed: the few memories written meanwhile move its weight by well under one percent, while counting
 * it costs a pass over that many rows. Rarer terms (and words no memory held) are counted again at once.
 */
export const COMMON_TERM_DOCUMENTS = 1_000;
export const COMMON_TERM_TTL_MS = 30_000;

/** The statistics of one retrieval: the scope's state as read once, and its terms' document frequencies. */
export interface CollectionSnapshot {
  state: CollectionState;
  /** BM25 statistics for these terms at this snapshot (from the cache where still exact enough, see above). */
  statsFor(terms: readonly string[]): Promise<CollectionStats>;
}

/**
 * BM25 collection statistics per organization and environment (each vocabulary weighs its own words). The
 * totals are read with every retrieval (one keyed row the database keeps exact in every write); document
 * frequencies are reused while the scope's version is unchanged, whichever process wrote (see docs/retrieval.md).
 */
export function collectionStatsCache(memories: Pick<MemorySearch, "collectionState" | "documentFrequencies">, clock: Clock) {
  const scopes = new LRUCache<string, Map<string, CountedTerm>>({ max: 1_000 });

  return async function snapshot(scope: CollectionScope): Promise<CollectionSnapshot> {
    const state = await memories.collectionState(scope);
    const scopeId = scopeKey(scope);
    let terms = scopes.get(scopeId);
    if (!terms) scopes.set(scopeId, (terms = new Map()));
    const counted = terms;
    const current = (entry: CountedTerm | undefined, now: number) =>
      entry !== undefined && (entry.version === state.version || (entry.documents >= COMMON_TERM_DOCUMENTS && now - entry.countedAt < COMMON_TERM_TTL_MS));
    return {
      state,
      async statsFor(wanted) {
        const now = clock().getTime();
        const documentFrequency = new Map<string, number>();
        const uncounted: string[] = [];
        for (const term of new Set(wanted)) {
          const entry = counted.get(term);
          if (current(entry, now)) documentFrequency.set(term, entry!.documents);
          else uncounted.push(term);
        }
        const fresh = uncounted.length > 0 ? await memories.documentFrequencies(scope, uncounted) : [];
        if (counted.size + uncounted.length > MAX_TERMS_PER_SCOPE) counted.clear();
        uncounted.forEach((term, i) => {
          documentFrequency.set(term, fresh[i]!);
          counted.set(term, { documents: fresh[i]!, version: state.version, countedAt: now });
        });
        return { documents: state.documents, averageLength: state.averageLength, documentFrequency };
      },
    };
  };
}
