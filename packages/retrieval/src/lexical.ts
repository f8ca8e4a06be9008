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
  const wanted = wantedTerms(concepts);
  const stats = collection ?? statsOf(documents, wanted);
  const averageLength = stats.averageLength || 1;

  // A term's idf depends on the collection alone: weighed once, not once per document holding it.
  const idf = new Float64Array(wanted.terms.length);
  wanted.terms.forEach((term, i) => {
    // The collection may lag a just-written document by a moment: never let df fall below 1.
    const df = Math.max(1, stats.documentFrequency.get(term) ?? 0);
    const n = Math.max(stats.documents, df);
    idf[i] = Math.log(1 + (n - df + 0.5) / (df + 0.5));
  });
  // One document's counts at a time, in one array: ranking a hundred candidates allocates nothing per candidate.
  const weighed: WeighedDocument = { counts: new Float64Array(wanted.terms.length), idf, lengthNorm: 0 };
  const matches: LexicalMatch[] = [];
  for (const doc of documents) {
    if (!countWanted(doc, wanted, weighed.counts)) continue;
    weighed.lengthNorm = K1 * (1 - B + (B * weightedLength(doc)) / averageLength);
    let score = 0;
    for (const concept of wanted.concepts) score += conceptScore(concept, weighed);
    if (score > 0) matches.push({ id: doc.id, score });
  }
  return matches.sort((a, b) => b.score - a.score);
}

/** A concept with its terms as indexes into the query's distinct terms. */
interface IndexedConcept {
  forms: readonly number[];
  parts: readonly number[];
  synonyms: ReadonlyArray<readonly number[]>;
}

/** The query's distinct terms (synonyms' words included), each concept pointing into them. */
interface WantedTerms {
  terms: readonly string[];
  index: ReadonlyMap<string, number>;
  concepts: readonly IndexedConcept[];
}

function wantedTerms(concepts: readonly QueryConcept[]): WantedTerms {
  const terms = conceptTerms(concepts, { synonyms: true });
  const index = new Map(terms.map((term, i) => [term, i]));
  const at = (term: string) => index.get(term)!;
  return {
    terms,
    index,
    concepts: concepts.map((concept) => ({ forms: concept.forms.map(at), parts: concept.parts.map(at), synonyms: concept.synonyms.map((words) => words.map(at)) })),
  };
}

/** A document's query-term counts (by term index), with what BM25 weighs them by. */
interface WeighedDocument {
  counts: Float64Array;
  idf: Float64Array;
  /** K1 scaled by the document's length against the average. */
  lengthNorm: number;
}

/** A term's BM25 contribution to the document's score. */
function contribution(term: number, doc: WeighedDocument): number {
  const tf = doc.counts[term]!;
  return tf ? (doc.idf[term]! * tf * (K1 + 1)) / (tf + doc.lengthNorm) : 0;
}

/** A concept's best match: an exact form, or its parts together, or a synonym (all of its words), each at its weight. */
function conceptScore(concept: IndexedConcept, doc: WeighedDocument): number {
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
function everyWordScore(words: readonly number[], doc: WeighedDocument): number {
  let sum = 0;
  for (const word of words) {
    const c = contribution(word, doc);
    if (c === 0) return 0;
    sum += c;
  }
  return sum;
}

/** Statistics of the documents themselves, for the query's terms. */
function statsOf(documents: readonly LexicalDocument[], wanted: WantedTerms): CollectionStats {
  const documentFrequency = new Map<string, number>();
  const counts = new Float64Array(wanted.terms.length);
  let length = 0;
  for (const doc of documents) {
    length += weightedLength(doc);
    if (!countWanted(doc, wanted, counts)) continue;
    wanted.terms.forEach((term, i) => {
      if (counts[i]! > 0) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    });
  }
  return { documents: documents.length, averageLength: length / documents.length, documentFrequency };
}

/** A document's length with its subject weighted as ranking weighs it. */
const weightedLength = (doc: LexicalDocument) => doc.terms.length + doc.subjectTerms.length * (SUBJECT_WEIGHT - 1);

/**
 * Fills `counts` with the document's count of each wanted term (subject occurrences weighted); false when it
 * holds none of them.
 */
function countWanted(doc: LexicalDocument, wanted: WantedTerms, counts: Float64Array): boolean {
  counts.fill(0);
  const inText = countSide(doc.terms.counts, 1, wanted, counts);
  const inSubject = countSide(doc.subjectTerms.counts, SUBJECT_WEIGHT - 1, wanted, counts);
  return inText || inSubject;
}

/** Adds one side's counts of the wanted terms, `weight` times each; whether it holds any. */
function countSide(side: ReadonlyMap<string, number>, weight: number, wanted: WantedTerms, counts: Float64Array): boolean {
  let found = false;
  // Whichever is shorter is walked: a long query over short memories, or long memories for a short query.
  if (side.size < wanted.terms.length) {
    for (const [term, count] of side) {
      const i = wanted.index.get(term);
      if (i === undefined) continue;
      counts[i] = counts[i]! + count * weight;
      found = true;
    }
  } else {
    for (let i = 0; i < wanted.terms.length; i++) {
      const count = side.get(wanted.terms[i]!);
      if (count === undefined) continue;
      counts[i] = counts[i]! + count * weight;
      found = true;
    }
  }
  return found;
}
