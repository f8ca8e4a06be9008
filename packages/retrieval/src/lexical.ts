import { conceptTerms, exactConcepts, PART_WEIGHT, type QueryConcept, SYNONYM_WEIGHT } from "./query";

/**
 * A text's analysed terms as ranking reads them: how often each occurs, in first-seen order, and how many there
 * are in all. Ranking then costs a lookup per wanted term, whatever the text's length, and a candidate held
 * between queries keeps its distinct terms only.
 */
export interface TermCounts {
  readonly counts: ReadonlyMap<string, number>;
  readonly length: number;
}

export function countTerms(terms: Iterable<string>): TermCounts {
  const counts = new Map<string, number>();
  let length = 0;
  for (const term of terms) {
    counts.set(term, (counts.get(term) ?? 0) + 1);
    length += 1;
  }
  return { counts, length };
}

export interface LexicalDocument {
  id: string;
  /** The analysed terms of subject and text together (what the full-text index holds). */
  terms: TermCounts;
  /** The analysed terms of the subject alone. */
  subjectTerms: TermCounts;
}

/** Statistics of the whole collection, so a term's weight does not depend on which candidates were fetched. */
export interface CollectionStats {
  documents: number;
  averageLength: number;
  documentFrequency: ReadonlyMap<string, number>;
}

export interface LexicalMatch {
  id: string;
  score: number;
}

/** Okapi BM25 term-frequency saturation, the common default (Robertson & Zaragoza). */
const K1 = 1.2;
/**
 * Length normalization, below the 0.75 default meant for documents of any length: a memory is a statement
 * of a sentence or three, whose length says more about how many identifiers it names (each is indexed in
 * several forms) than about how wordy it is. Chosen on half of the evaluation queries (0.3 over 0.5 and
 * 0.75); the other half gained as much.
 */
const B = 0.3;
/** A term found in the subject counts as this many occurrences in the text. */
const SUBJECT_WEIGHT = 2;

/**
 * Ranks documents by BM25, with the subject weighted above the text. Each query concept adds its best
 * match in the document (see QueryConcept); documents that match none are left out. Term weights come
 * from `collection` when given (the whole index), else from the documents passed in. Plain terms are read
 * as concepts of one exact form each.
 */
export function rankLexically(
  query: readonly string[] | readonly QueryConcept[],
  documents: readonly LexicalDocument[],
  collection?: CollectionStats,
): LexicalMatch[] {
  const concepts = query.every((item) => typeof item === "string") ? exactConcepts(query as readonly string[]) : (query as readonly QueryConcept[]);
  if (concepts.length === 0 || documents.length === 0) return [];
  const wanted = new Set(conceptTerms(concepts, { synonyms: true }));
  const analysed = documents.map((doc) => ({ id: doc.id, ...termFrequencies(doc, wanted) }));
  const stats = collection ?? statsOf(analysed);
  const averageLength = stats.averageLength || 1;

  // A term's idf depends on the collection alone: weighed once, not once per document holding it.
  const idf = new Map<string, number>();
  for (const term of wanted) {
    // The collection may lag a just-written document by a moment: never let df fall below 1.
    const df = Math.max(1, stats.documentFrequency.get(term) ?? 0);
    const n = Math.max(stats.documents, df);
    idf.set(term, Math.log(1 + (n - df + 0.5) / (df + 0.5)));
  }
  const matches: LexicalMatch[] = [];
  for (const doc of analysed) {
    if (doc.counts.size === 0) continue;
    const weighed: WeighedDocument = { counts: doc.counts, idf, lengthNorm: K1 * (1 - B + (B * doc.length) / averageLength) };
    let score = 0;
    for (const concept of concepts) score += conceptScore(concept, weighed);
    if (score > 0) matches.push({ id: doc.id, score });
  }
  return matches.sort((a, b) => b.score - a.score);
}

/** A document's query-term counts, with what BM25 weighs them by. */
interface WeighedDocument {
  counts: ReadonlyMap<string, number>;
  idf: ReadonlyMap<string, number>;
  /** K1 scaled by the document's length against the average. */
  lengthNorm: number;
}

/** A term's BM25 contribution to the document's score. */
function contribution(term: string, doc: WeighedDocument): number {
  const tf = doc.counts.get(term);
  return tf ? (doc.idf.get(term)! * tf * (K1 + 1)) / (tf + doc.lengthNorm) : 0;
}

/** A concept's best match: an exact form, or its parts together, or a synonym (all of its words), each at its weight. */
function conceptScore(concept: QueryConcept, doc: WeighedDocument): number {
  let best = 0;
  for (const form of concept.forms) best = Math.max(best, contribution(form, doc));
  if (concept.parts.length > 0) {
    let parts = 0;
    for (const part of concept.parts) parts += contribution(part, doc);
    best = Math.max(best, PART_WEIGHT * parts);
  }
  for (const synonym of concept.synonyms) best = Math.max(best, SYNONYM_WEIGHT * everyWordScore(synonym, doc));
  return best;
}

/** The words' contributions together, or 0 unless the document holds every one of them. */
function everyWordScore(words: readonly string[], doc: WeighedDocument): number {
  let sum = 0;
  for (const word of words) {
    const c = contribution(word, doc);
    if (c === 0) return 0;
    sum += c;
  }
  return sum;
}

function statsOf(analysed: Array<{ counts: Map<string, number>; length: number }>): CollectionStats {
  const documentFrequency = new Map<string, number>();
  for (const doc of analysed) for (const term of doc.counts.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  return { documents: analysed.length, averageLength: analysed.reduce((sum, doc) => sum + doc.length, 0) / analysed.length, documentFrequency };
}

/** Counts of the query terms in a document (subject occurrences weighted), and its weighted length. */
function termFrequencies(doc: LexicalDocument, wanted: ReadonlySet<string>): { counts: Map<string, number>; length: number } {
  const inText = doc.terms.counts;
  const inSubject = doc.subjectTerms.counts;
  const counts = new Map<string, number>();
  // Whichever side is shorter is walked: a long query over short memories, or long memories for a short query.
  if (inText.size + inSubject.size < wanted.size) {
    const add = (term: string, count: number) => wanted.has(term) && counts.set(term, (counts.get(term) ?? 0) + count);
    for (const [term, count] of inText) add(term, count);
    for (const [term, count] of inSubject) add(term, count * (SUBJECT_WEIGHT - 1));
  } else {
    for (const term of wanted) {
      const count = (inText.get(term) ?? 0) + (inSubject.get(term) ?? 0) * (SUBJECT_WEIGHT - 1);
      if (count > 0) counts.set(term, count);
    }
  }
  return { counts, length: doc.terms.length + doc.subjectTerms.length * (SUBJECT_WEIGHT - 1) };
}
