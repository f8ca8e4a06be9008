import { type CollectionStats, type LexicalDocument, type LexicalMatch, rankLexically } from "./lexical";

/**
 * Pseudo-relevance feedback, after the relevance models of Lavrenko and Croft (2001) as RM3 uses them
 * (Abdul-Jaleel et al., 2004): the best matches of a query name what the query did not, and their most
 * telling words lift the memories that share them. "How do I connect to internal tools from home?"
 * matches the old memory about the OpenVPN server; its word `openvpn` lifts the newer one saying
 * Tailscale replaced OpenVPN, which shares few words with the question.
 *
 * The constants were chosen on half of the evaluation queries (the other half gained as much): memories
 * are a sentence or three, so two sources already name the neighbouring facts, and their words count for
 * less than the query's own.
 */
export const FEEDBACK_SOURCES = 2;
export const FEEDBACK_TERMS = 20;
/** How much the feedback ranking adds, each ranking scaled so its best document scores 1. */
export const FEEDBACK_WEIGHT = 0.3;

/** The best matches, whose words feedback draws on: the collection statistics must count their terms. */
export function feedbackSources(matches: readonly LexicalMatch[], documents: readonly LexicalDocument[]): LexicalDocument[] {
  const byId = new Map(documents.map((document) => [document.id, document]));
  return matches.slice(0, FEEDBACK_SOURCES).map((match) => byId.get(match.id)!);
}

/**
 * The words of the best matches that the query lacks, most telling first: each source gives a term its
 * share of the source's length (P(t|d)), weighted by how well the source matched and by the term's idf,
 * so the rare words that set a memory apart lead. A term only one memory holds is left out: it can lift
 * no other.
 */
export function feedbackTerms(
  queryTerms: readonly string[],
  matches: readonly LexicalMatch[],
  documents: readonly LexicalDocument[],
  stats: CollectionStats,
): string[] {
  const asked = new Set(queryTerms);
  const best = matches[0]?.score ?? 0;
  const weights = new Map<string, number>();
  feedbackSources(matches, documents).forEach((source, i) => {
    for (const [term, count] of source.terms.counts) {
      if (asked.has(term)) continue;
      const df = stats.documentFrequency.get(term) ?? 0;
      if (df < 2) continue;
      const idf = Math.log(1 + (Math.max(stats.documents, df) - df + 0.5) / (df + 0.5));
      weights.set(term, (weights.get(term) ?? 0) + (count / source.terms.length) * (matches[i]!.score / best) * idf);
    }
  });
  return [...weights]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, FEEDBACK_TERMS)
    .map(([term]) => term);
}

/**
 * The query's matches re-ranked with feedback: the documents are ranked again by the feedback terms, and
 * each document's score is its query score plus FEEDBACK_WEIGHT times its feedback score, both scaled to
 * their best; equal scores keep the matches' order. `stats` must count the sources' terms (see
 * feedbackSources).
 */
export function withFeedback(
  queryTerms: readonly string[],
  matches: readonly LexicalMatch[],
  documents: readonly LexicalDocument[],
  stats: CollectionStats,
): LexicalMatch[] {
  const terms = feedbackTerms(queryTerms, matches, documents, stats);
  if (terms.length === 0) return [...matches];
  const feedback = rankLexically(terms, documents, stats);
  const scores = new Map(matches.map((match) => [match.id, match.score / matches[0]!.score]));
  for (const match of feedback) scores.set(match.id, (scores.get(match.id) ?? 0) + (FEEDBACK_WEIGHT * match.score) / feedback[0]!.score);
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}
