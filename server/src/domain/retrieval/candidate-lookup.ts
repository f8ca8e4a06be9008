import type { MemoryScope } from "../memory/ports";
import { matchesNothing } from "./candidate-plan";
import type { CandidateQuery, MemorySearch, SearchCandidate } from "./ports";
import { HELD_SIZES, type HeldSizes, recentTermsCache } from "./recent-terms";
import { newestFirst } from "./time-order";

type Memories = Pick<MemorySearch, "newestFromHeldTerms" | "newestDurable" | "collectionChanges" | "searchDurable" | "durableCandidates">;

/**
 * One full-text lookup's candidates. Where the backend prefers it, a newest-first lookup is answered from the
 * scope's newest memories' terms held in process (recent-terms.ts), the matches' candidate columns read by id,
 * and the index searches only what lies beyond the held memories.
 */
export function candidateLookup(memories: Memories, sizes: HeldSizes = HELD_SIZES) {
  const recentTerms = memories.newestFromHeldTerms ? recentTermsCache(memories, sizes) : null;

  /** `version` is the scope's collection version this retrieval read: the held terms are brought up to it. */
  return async function candidates(scope: MemoryScope, version: bigint, lookup: CandidateQuery): Promise<SearchCandidate[]> {
    if (lookup.order !== "newest" || !recentTerms) return memories.searchDurable(scope, lookup);
    if (matchesNothing(lookup)) return [];
    const { ids, olderThan } = (await recentTerms(scope, version)).newest(scope, lookup);
    // A memory that left the scope since the version read is no longer durable, and not read.
    const held = (await memories.durableCandidates(scope, ids)).sort(newestFirst);
    if (!olderThan) return held;
    return [...held, ...(await memories.searchDurable(scope, { ...lookup, limit: lookup.limit - ids.length, olderThan }))];
  };
}
