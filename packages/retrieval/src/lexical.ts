export interface LexicalDocument {
  id: string;
  /** The analysed terms of subject and text together (what the full-text index holds). */
  terms: readonly string[];
  /** The analysed terms of the subject alone. */
  subjectTerms: readonly string[];
}

export interface LexicalMatch {
  id: string;
  score: number;
}

/** Okapi BM25 constants, the common defaults (Robertson & Zaragoza). */
const K1 = 1.2;
const B = 0.75;
/** A term found in the subject counts as this many occurrences in the text. */
const SUBJECT_WEIGHT = 2;

/**
 * Ranks documents by BM25 over the given collection, with the subject weighted above the text.
 * Documents that match no query term are left out. Collection statistics come from the documents
 * passed in, so callers pass every document that could match.
 */
export function rankLexically(queryTerms: readonly string[], documents: readonly LexicalDocument[]): LexicalMatch[] {
  if (queryTerms.length === 0 || documents.length === 0) return [];
  const wanted = new Set(queryTerms);
  const analysed = documents.map((doc) => ({ id: doc.id, ...termFrequencies(doc, wanted) }));
  const averageLength = analysed.reduce((sum, doc) => sum + doc.length, 0) / analysed.length || 1;
  const documentFrequency = new Map<string, number>();
  for (const doc of analysed) for (const term of doc.counts.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);

  const matches: LexicalMatch[] = [];
  for (const doc of analysed) {
    let score = 0;
    for (const [term, tf] of doc.counts) {
      const df = documentFrequency.get(term)!;
      const idf = Math.log(1 + (analysed.length - df + 0.5) / (df + 0.5));
      score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / averageLength));
    }
    if (score > 0) matches.push({ id: doc.id, score });
  }
  return matches.sort((a, b) => b.score - a.score);
}

/** Counts of the query terms in a document (subject occurrences weighted), and its weighted length. */
function termFrequencies(doc: LexicalDocument, wanted: ReadonlySet<string>): { counts: Map<string, number>; length: number } {
  const counts = new Map<string, number>();
  for (const term of doc.terms) if (wanted.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
  for (const term of doc.subjectTerms) if (wanted.has(term)) counts.set(term, (counts.get(term) ?? 0) + SUBJECT_WEIGHT - 1);
  return { counts, length: doc.terms.length + doc.subjectTerms.length * (SUBJECT_WEIGHT - 1) };
}
