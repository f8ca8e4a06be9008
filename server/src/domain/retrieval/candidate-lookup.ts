import type { MemoryScope } from "../memory/ports";
import { matchesNothing } from "./candidate-plan";
import type { CandidateQuery, MemorySearch, Neighbour, NeighbourAnchor, NeighbourWindow, SearchCandidate } from "./ports";
import { HELD_SIZES, type HeldSizes, recentTermsCache } from "./recent-terms";

type Memories = Pick<MemorySearch, "newestDurable" | "collectionChanges" | "searchDurable" | "neighbours">;

/**
 * Retrieval's full-text candidates and exchange neighbours. Newest-first lookups and neighbours are found among
 * the scope's newest memories held in process as candidates (recent-terms.ts); the database searches only what
 * lies beyond the held memories, and ranks relevance-ordered lookups itself. `version` is the scope's collection
 * version the retrieval read: the held memories are brought up to it.
 */
export function candidateLookup(memories: Memories, sizes: HeldSizes = HELD_SIZES) {
  const recentTerms = recentTermsCache(memories, sizes);

  return {
    /** One full-text lookup's candidates. */
    async matching(scope: MemoryScope, version: bigint, lookup: CandidateQuery): Promise<SearchCandidate[]> {
      if (lookup.order !== "newest") return memories.searchDurable(scope, lookup);
      if (matchesNothing(lookup)) return [];
      const { candidates, olderThan } = (await recentTerms(scope, version)).newest(scope, lookup);
      if (!olderThan) return candidates;
      return [...candidates, ...(await memories.searchDurable(scope, { ...lookup, limit: lookup.limit - candidates.length, olderThan }))];
    },

    /** The anchors' neighbours (see MemorySearch.neighbours). */
    async neighbours(scope: MemoryScope, version: bigint, anchors: readonly NeighbourAnchor[], within: NeighbourWindow): Promise<Neighbour[]> {
      const held = await recentTerms(scope, version);
      const found = anchors.map((anchor) => ({ anchor, candidates: held.neighbours(anchor, within) }));
      const beyond = found.filter(({ candidates }) => candidates === null).map(({ anchor }) => anchor);
      const searched = beyond.length === 0 ? [] : await memories.neighbours(scope, beyond, within);
      return [...found.flatMap(({ anchor, candidates }) => (candidates ?? []).map((candidate) => ({ anchorId: anchor.id, candidate }))), ...searched];
    },
  };
}
