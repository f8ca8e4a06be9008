import { analyzeWords } from "./analyze";
import { LONGEST_ENTRY, type Phrase, phraseOf, synonymsOf } from "./synonyms";

/**
 * One word of a query and every index term that can stand for it. A memory earns the word once, by its
 * best match: an exact form at full weight, an identifier's parts together at PART_WEIGHT, a synonym at
 * SYNONYM_WEIGHT (a synonym of several words only when the memory holds them all). Counting each form
 * separately would let a service name that is indexed four ways (`sso-bridge`, `ssobridg`, `sso`,
 * `bridg`) outweigh the one word that says what is asked about it.
 */
export interface QueryConcept {
  forms: readonly string[];
  parts: readonly string[];
  synonyms: readonly Phrase[];
}

/** Parts are a looser match than the identifier itself: `payments` alone is not `payments-api`. */
export const PART_WEIGHT = 0.5;
/** How much a synonym counts against the word the query actually used. */
export const SYNONYM_WEIGHT = 0.5;

/**
 * The query's words as concepts, repeats dropped. A word's synonyms are those of any of its forms, and
 * those of a phrase the word ends ("product manager" brings "pm" to "manager"); a synonym the query used
 * itself is left to that word.
 */
export function analyzeQuery(query: string): QueryConcept[] {
  const words = analyzeWords(query);
  const used = new Set(words.flatMap((word) => word.forms));
  const synonyms = words.map(() => new Map<string, Phrase>());
  const add = (i: number, found: readonly Phrase[]) => {
    for (const phrase of found) if (!phrase.every((term) => used.has(term))) synonyms[i]!.set(phrase.join(" "), phrase);
  };
  words.forEach((word, i) => {
    for (const form of word.forms) add(i, synonymsOf([form]));
    for (let length = 2; length <= Math.min(LONGEST_ENTRY, i + 1); length++) add(i, synonymsOf(phraseOf(words.slice(i + 1 - length, i + 1))));
  });

  const concepts = new Map<string, QueryConcept>();
  words.forEach(({ forms, parts }, i) => {
    const key = [...forms, "|", ...parts].join(" ");
    const previous = concepts.get(key);
    concepts.set(key, { forms, parts, synonyms: [...new Set([...(previous?.synonyms ?? []), ...synonyms[i]!.values()])] });
  });
  return [...concepts.values()];
}

/** Plain terms as concepts of one exact form each. */
export function exactConcepts(terms: readonly string[]): QueryConcept[] {
  return [...new Set(terms)].map((term) => ({ forms: [term], parts: [], synonyms: [] }));
}

/** The distinct index terms of concepts: their own forms and parts, and with `synonyms`, those too. */
export function conceptTerms(concepts: readonly QueryConcept[], { synonyms }: { synonyms: boolean }): string[] {
  const terms = concepts.flatMap((concept) => [...concept.forms, ...concept.parts, ...(synonyms ? concept.synonyms.flat() : [])]);
  return [...new Set(terms)];
}
