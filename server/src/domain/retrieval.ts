import type { TRetrieveResponse } from "@engram/contract";
import { analyzeText, assembleContext, queryTerms, rankLexically, scoreMemory } from "@engram/retrieval";
import { collectionStatsCache } from "./collection-stats";
import { memoryView } from "./memory-view";
import type { MemoryScope, Store } from "./ports";

/** Full-text candidates considered per query; when more match, the backend's own rank picks them. */
const MAX_CANDIDATES = 100;
/**
 * How many index entries the candidate search may walk. Terms are added rarest first until their
 * postings exceed this, so a query mixing a rare identifier with very common words ("deploy", "api")
 * looks where the rare term is instead of ranking thousands of memories for the common ones; the
 * common words still count when the candidates are scored.
 */
const CANDIDATE_POSTINGS_BUDGET = 2000;

/**
 * The query terms to search the index with: the rarest ones within the postings budget (at least one
 * that the index holds), plus any the statistics have not seen, which cost nothing to look up and may
 * name a memory written since they were counted.
 */
export function candidateTerms(terms: readonly string[], documentFrequency: ReadonlyMap<string, number>): string[] {
  const df = (term: string) => documentFrequency.get(term) ?? 0;
  const unseen = terms.filter((term) => df(term) === 0);
  const chosen: string[] = [];
  let postings = 0;
  for (const term of terms.filter((t) => df(t) > 0).sort((a, b) => df(a) - df(b))) {
    postings += df(term);
    if (chosen.length > 0 && postings > CANDIDATE_POSTINGS_BUDGET) break;
    chosen.push(term);
  }
  return [...unseen, ...chosen];
}

export interface RetrieveInput {
  query: string;
  limit: number;
  includeContext: boolean;
  contextMode: "full" | "compact";
}

/**
 * Retrieval: full-text candidates from the store, ranked by BM25 relevance with collection statistics,
 * modulated by ACT-R activation and confidence (see @engram/retrieval), then read whole for the answer
 * and, when asked, assembled into a context block.
 */
export function memoryRetrieval(store: Store, clock: () => Date) {
  const collectionStats = collectionStatsCache(store.memories);

  return async function retrieve(scope: MemoryScope, input: RetrieveInput): Promise<TRetrieveResponse> {
    const started = performance.now();
    const terms = queryTerms(input.query);
    const stats = await collectionStats(terms);
    const candidates = await store.memories.searchDurable(scope, candidateTerms(terms, stats.documentFrequency), MAX_CANDIDATES);
    const byId = new Map(candidates.map((candidate) => [candidate.id, candidate]));
    const now = clock();
    const documents = candidates.map((c) => ({ id: c.id, terms: c.searchTerms, subjectTerms: c.subject ? analyzeText(c.subject) : [] }));
    const top = rankLexically(terms, documents, stats)
      .map((match) => {
        const candidate = byId.get(match.id)!;
        const { score } = scoreMemory(
          {
            relevance: match.score,
            confidence: candidate.confidence,
            recentUses: candidate.recentUses,
            totalUses: 1 + candidate.reinforcementCount,
            firstUse: candidate.createdAt,
          },
          now,
        );
        return { candidate, score };
      })
      // Equal scores: the newer memory first, then by id, so the order is the same on every backend.
      .sort((a, b) => b.score - a.score || b.candidate.createdAt.getTime() - a.candidate.createdAt.getTime() || (a.candidate.id < b.candidate.id ? -1 : 1))
      .slice(0, input.limit);
    const records = new Map((await store.memories.findManyByIds(top.map(({ candidate }) => candidate.id))).map((m) => [m.id, m]));
    const ranked = top.flatMap(({ candidate, score }) => {
      const memory = records.get(candidate.id);
      // A memory tombstoned between the two reads is simply left out.
      return memory && memory.state === "durable" ? [{ memory, score }] : [];
    });
    const memories = ranked.map(({ memory, score }) => ({ ...memoryView(memory), score: Number(score.toFixed(6)) }));
    if (!input.includeContext) return { memories };
    const assembled = assembleContext(
      ranked.map(({ memory }) => memory),
      { mode: input.contextMode, now },
    );
    return {
      memories,
      context: {
        systemBlock: assembled.systemBlock,
        mode: input.contextMode,
        stats: {
          candidates: candidates.length,
          returned: memories.length,
          merged: assembled.mergedIds.length,
          tokens: assembled.tokens,
          tookMs: Number((performance.now() - started).toFixed(2)),
        },
      },
    };
  };
}
