import { analyzeText } from "./analyze";

export interface LexicalDocument {
  id: string;
  text: string;
  subject: string | null;
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
export function rankLexically(terms: readonly string[], documents: readonly LexicalDocument[]): LexicalMatch[] {
  if (terms.length === 0 || documents.length === 0) return [];
  const analysed = documents.map((doc) => ({ id: doc.id, frequencies: termFrequencies(doc) }));
  const averageLength = analysed.reduce((sum, doc) => sum + doc.frequencies.length, 0) / analysed.length || 1;
  const documentFrequency = new Map<string, number>();
  for (const term of terms) {
    documentFrequency.set(term, analysed.filter((doc) => doc.frequencies.counts.has(term)).length);
  }

  const matches: LexicalMatch[] = [];
  for (const doc of analysed) {
    let score = 0;
    for (const term of terms) {
      const tf = doc.frequencies.counts.get(term) ?? 0;
      if (tf === 0) continue;
      const df = documentFrequency.get(term) ?? 0;
      const idf = Math.log(1 + (analysed.length - df + 0.5) / (df + 0.5));
      score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.frequencies.length) / averageLength));
    }
    if (score > 0) matches.push({ id: doc.id, score });
  }
  return matches.sort((a, b) => b.score - a.score);
}

function termFrequencies(doc: LexicalDocument): { counts: Map<string, number>; length: number } {
  const counts = new Map<string, number>();
  const textTerms = analyzeText(doc.text);
  for (const term of textTerms) counts.set(term, (counts.get(term) ?? 0) + 1);
  const subjectTerms = doc.subject ? analyzeText(doc.subject) : [];
  for (const term of subjectTerms) counts.set(term, (counts.get(term) ?? 0) + SUBJECT_WEIGHT);
  return { counts, length: textTerms.length + subjectTerms.length * SUBJECT_WEIGHT };
}
