/**
 * Text analysis shared by indexing and querying: Unicode and case folding, word splitting and
 * stop-word removal. Both sides must analyse text the same way for matches to be found.
 */

const STOP_WORDS = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it its " +
    "me my no not of on or our so that the their them then there these they this to was we were what when where " +
    "which who why will with would you your"
  ).split(" "),
);

/** Lower-cases and strips diacritics, so "Café" and "cafe" meet. */
export function foldText(text: string): string {
  return text.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase();
}

/** The index terms of a text: folded words and numbers, without stop words. */
export function analyzeText(text: string): string[] {
  return foldText(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((term) => term.length > 0 && !STOP_WORDS.has(term));
}

/** Distinct query terms, in first-seen order. */
export function queryTerms(query: string): string[] {
  return [...new Set(analyzeText(query))];
}
