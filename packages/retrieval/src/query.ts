import { analyzeWords } from "./analyze";
import { synonymsOf } from "./synonyms";

/**
 * One word of a query and every index term that can stand for it. A memory earns the word once, by its
 * best match: an exact form at full weight, an identifier's parts together at PART_WEIGHT, a synonym at
 * SYNONYM_WEIGHT. Counting each form separately would let a service name that is indexed four ways
 * (`sso-bridge`, `ssobridg`, `sso`, `bridg`) outweigh the one word that says what is asked about it.
 */
export interface QueryConcept {
  forms: readonly string[];
  parts: readonly string[];
  synonyms: readonly string[];
}

/** Parts are a looser match than the identifier itself: `payments` alone is not `payments-api`. */
export const PART_WEIGHT = 0.5;
/** How much a synonym counts against the word the query actually used. */
export const SYNONYM_WEIGHT = 0.5;

/** The query's words as concepts, repeats dropped; synonyms the query also used itself are left to that word. */
export function analyzeQuery(query: string): QueryConcept[] {
  const words = analyzeWords(query);
  const used = new Set(words.flatMap((word) => word.forms));
  const seen = new Set<string>();
  const concepts: QueryConcept[] = [];
  for (const { forms, parts } of words) {
    const key = [...forms, "|", ...parts].join(" ");
    if (seen.has(key)) continue;
    seen.add(key);
    const synonyms = new Set(forms.flatMap((form) => [...synonymsOf(form)]).filter((term) => !used.has(term)));
    concepts.push({ forms, parts, synonyms: [...synonyms] });
  }
  return concepts;
}

/** Plain terms as concepts of one exact form each. */
export function exactConcepts(terms: readonly string[]): QueryConcept[] {
  return [...new Set(terms)].map((term) => ({ forms: [term], parts: [], synonyms: [] }));
}

/** The distinct index terms of concepts: their own forms and parts, and with `synonyms`, those too. */
export function conceptTerms(concepts: readonly QueryConcept[], { synonyms }: { synonyms: boolean }): string[] {
  const terms = concepts.flatMap((concept) => [...concept.forms, ...concept.parts, ...(synonyms ? concept.synonyms : [])]);
  return [...new Set(terms)];
}
