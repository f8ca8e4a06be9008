import type { MemoryScope } from "../memory/ports";
import { matchesNothing } from "./candidate-plan";
import type { CandidateQuery, MemorySearch, Neighbour, NeighbourAnchor, NeighbourWindow, SearchCandidate } from "./ports";
import { HELD_SIZES, type HeldSizes, recentTermsCache } from "./recent-terms";
import { newestFirst } from "./time-order";

type Memories = Pick<MemorySearch, "newestFromHeldTerms" | "newestDurable" | "collectionChanges" | "searchDurable" | "durableCandidates" | "neighbours">;

/**
 * Retrieval's full-text candidates and exchange neighbours. Where the backend prefers it, both are found among
 * the scope's newest memories held in process (recent-terms.ts) and only the candidates' columns are read, by
 * id; the database searches only what lies beyond the held memories. `version` is the scope's collection
 * version the retrieval read: the held memories are brought up to it.
 */
export function candidateLookup(memories: Memories, sizes: HeldSizes = HELD_SIZES) {
  const recentTerms = memories.newestFromHeldTerms ? recentTermsCache(memories, sizes) : null;

  return {
    /** One full-text lookup's candidates. */
    async matching(scope: MemoryScope, version: bigint, lookup: CandidateQuery): Promise<SearchCandidate[]> {
      if (lookup.order !== "newest" || !recentTerms) return memories.searchDurable(scope, lookup);
      if (matchesNothing(lookup)) return [];
      const { ids, olderThan } = (await recentTerms(scope, version)).newest(scope, lookup);
      // A memory that left the scope since the version read is no longer durable, and not read.
      const held = (await memories.durableCandidates(scope, ids)).sort(newestFirst);
      if (!olderThan) return held;
      return [...held, ...(await memories.searchDurable(scope, { ...lookup, limit: lookup.limit - ids.length, olderThan }))];
    },

    /** The anchors' neighbours (see MemorySearch.neighbours); those among `known` candidates are not read again. */
    async neighbours(scope: MemoryScope, version: bigint, anchors: readonly NeighbourAnchor[], within: NeighbourWindow, known: ReadonlyMap<string, SearchCandidate>): Promise<Neighbour[]> {
      if (!recentTerms) return memories.neighbours(scope, anchors, within);
      const held = await recentTerms(scope, version);
      const found = anchors.map((anchor) => ({ anchor, ids: held.neighbours(anchor, within) }));
      const unknown = [...new Set(found.flatMap(({ ids }) => ids ?? []))].filter((id) => !known.has(id));
      const read = new Map(unknown.length === 0 ? [] : (await memories.durableCandidates(scope, unknown)).map((candidate) => [candidate.id, candidate]));
      const beyond = found.filter(({ ids }) => ids === null).map(({ anchor }) => anchor);
      const searched = beyond.length === 0 ? [] : await memories.neighbours(scope, beyond, within);
      return [
        ...found.flatMap(({ anchor, ids }) =>
          (ids ?? []).flatMap((id) => {
            const candidate = known.get(id) ?? read.get(id);
            return candidate ? [{ anchorId: anchor.id, candidate }] : [];
          }),
        ),
        ...searched,
      ];
    },
  };
}
