import { conceptTerms, type QueryConcept } from "@engram/retrieval";
import type { CandidateQuery } from "./ports";

/** A lookup with an empty list of terms, which matches nothing (and is not valid full-text syntax either). */
export const matchesNothing = (lookup: CandidateQuery): boolean =>
  lookup.match === "all" ? lookup.groups.length === 0 || lookup.groups.some((group) => group.length === 0) : lookup.terms.length === 0;

/** Candidates ranked per full-text lookup; retrieval scores the union of the plan's lookups. */
export const MAX_CANDIDATES = 100;
/**
 * How many index entries a relevance-ordered lookup may walk: the backend scores every match before it
 * can order them, so a lookup over more postings than this is ordered by recency instead, which the
 * index answers by walking only as far as the limit.
 */
export const CANDIDATE_POSTINGS_BUDGET = 2000;

/**
 * The most words of a query whose memories the newest-first lookup requires to hold them all: its rarest. Every
 * word required is a posting list the index intersects, and a memory holding fifty words of a long query is a
 * candidate to rank all the same; a query of 500 words every memory held made an intersection of 80-110 ms.
 */
export const MAX_WORDS_REQUIRED = 8;

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

/**
 * The full-text lookups for a query's concepts: one exact lookup when all postings fit the budget, else
 * the newest memories holding every word (the rarest MAX_WORDS_REQUIRED of a long query), then those holding
 * the rarest terms (see docs/retrieval.md).
 */
export function candidatePlan(concepts: readonly QueryConcept[], documentFrequency: ReadonlyMap<string, number>): CandidateQuery[] {
  const expanded = conceptTerms(concepts, { synonyms: true });
  if (expanded.length === 0) return [];
  const df = (term: string) => documentFrequency.get(term) ?? 0;
  const postings = (terms: readonly string[]) => terms.reduce((sum, term) => sum + df(term), 0);
  if (postings(expanded) <= CANDIDATE_POSTINGS_BUDGET) return [{ terms: expanded, match: "any", order: "relevance", limit: MAX_CANDIDATES }];

  const words = concepts.map((concept) => concept.forms.filter((form) => df(form) > 0)).filter((forms) => forms.length > 0);
  const groups = words.length <= MAX_WORDS_REQUIRED ? words : [...words].sort((a, b) => postings(a) - postings(b)).slice(0, MAX_WORDS_REQUIRED);
  const selective = candidateTerms(expanded, documentFrequency);
  const plan: CandidateQuery[] = [];
  if (groups.length > 1) plan.push({ groups, match: "all", order: "newest", limit: MAX_CANDIDATES });
  plan.push({ terms: selective, match: "any", order: postings(selective) <= CANDIDATE_POSTINGS_BUDGET ? "relevance" : "newest", limit: MAX_CANDIDATES });
  return plan;
}
