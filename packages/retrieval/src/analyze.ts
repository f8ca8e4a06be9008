/// <reference path="./wink-porter2-stemmer.d.ts" />
import stem from "wink-porter2-stemmer";

/**
 * Text analysis shared by indexing and querying, so both sides meet on the same terms:
 * - Unicode and case folding ("Café" and "cafe" meet);
 * - identifiers common in developer memory kept whole *and* split into their parts: ticket ids
 *   (`INC-42`), service names (`payments-api`), versions (`v1.4.0`), paths (`docs/runbooks/x.md`),
 *   `snake_case` and `camelCase` (`paymentService` -> `paymentservice`, `payment`, `service`), letters
 *   and digits run together (`INC2077` -> `inc2077`, `inc`, `2077`); hyphenated and snake_case names are
 *   also indexed run together (`inc-42` as `inc42`, `payments-api` as `paymentsapi`, which `PaymentsAPI`
 *   meets), and versions without their `v` (`v1.4.0` as `1.4.0`);
 * - Porter2 (Snowball English) stemming of plain words ("deploys", "deployed", "deployment" -> "deploy");
 * - English stop words dropped.
 */

const STOP_WORDS = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it its " +
    "me my no not of on or our so that the their them then there these they this to was we were what when where " +
    "which who why will with would you your about after all also any before being both each few more most other " +
    "over same should some such than too under until up very via"
  ).split(" "),
);

/** A run of letters and digits, optionally joined into one identifier by . _ - / : # @ */
const RAW_TOKEN = /[\p{L}\p{N}]+(?:[._\-/:#@][\p{L}\p{N}]+)*/gu;
const SEPARATOR = /[._\-/:#@]/;
const CAMEL_BOUNDARY = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
const LETTER_DIGIT_BOUNDARY = /(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u;
const VERSION = /^v(\d+(?:\.\d+)+)$/;
const PLAIN_WORD = /^\p{L}+$/u;

/** Lower-cases and strips diacritics. */
export function foldText(text: string): string {
  return text.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase();
}

/** Stems already computed: a collection's vocabulary is small next to its word count. */
const stems = new Map<string, string>();
const MAX_CACHED_STEMS = 100_000;

function stemOf(word: string): string {
  let stemmed = stems.get(word);
  if (stemmed === undefined) {
    if (stems.size >= MAX_CACHED_STEMS) stems.clear();
    stems.set(word, (stemmed = stem(word)));
  }
  return stemmed;
}

function normalizeWord(word: string): string | null {
  if (STOP_WORDS.has(word)) return null;
  // A lone digit or letter carries no meaning of its own (version parts, list markers).
  if (word.length === 1) return null;
  return PLAIN_WORD.test(word) ? stemOf(word) : word;
}

/** The index terms of a text, in order, repeats kept (term frequency matters to ranking). */
export function analyzeText(text: string): string[] {
  const terms: string[] = [];
  for (const [raw] of text.normalize("NFKD").replace(/\p{M}+/gu, "").matchAll(RAW_TOKEN)) {
    const parts = raw
      .split(SEPARATOR)
      .flatMap((part) => part.split(CAMEL_BOUNDARY))
      .flatMap((part) => part.split(LETTER_DIGIT_BOUNDARY));
    const whole = raw.toLowerCase();
    if (parts.length > 1) {
      // An identifier: the whole form matches exact mentions, its other spellings and parts loose ones.
      if (!STOP_WORDS.has(whole)) terms.push(...identifierForms(whole));
      for (const part of parts) {
        const term = normalizeWord(part.toLowerCase());
        if (term) terms.push(term);
      }
      continue;
    }
    const term = normalizeWord(whole);
    if (term) terms.push(term);
  }
  return terms;
}

/** An identifier as written (`_` read as `-`), run together when hyphenated, and a version without its `v`. */
function identifierForms(whole: string): string[] {
  const written = whole.replaceAll("_", "-");
  const forms = [written];
  const runTogether = written.replaceAll("-", "");
  if (runTogether !== written && !SEPARATOR.test(runTogether)) forms.push(runTogether);
  const version = VERSION.exec(written)?.[1];
  if (version) forms.push(version);
  return forms;
}

/** Distinct query terms, in first-seen order. */
export function queryTerms(query: string): string[] {
  return [...new Set(analyzeText(query))];
}
