/// <reference path="./wink.d.ts" />
import irregularVerbs from "wink-lexicon/src/irregular-verbs.js";
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
// Lower to upper (`paymentService`), or the last capital of an acronym before a word (`HTTPServer`), but
// not an acronym's plural `s` (`RFCs`, `APIsClient`).
const CAMEL_BOUNDARY = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}(?!s(?!\p{Ll}))\p{Ll})/u;
const ACRONYM_PLURAL = /^(\p{Lu}{2,})s$/u;
const LETTER_DIGIT_BOUNDARY = /(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u;
const VERSION = /^v(\d+(?:\.\d+)+)$/;
const PLAIN_WORD = /^\p{L}+$/u;
/**
 * A token no boundary can split (most of any text): a word with no capital but its first, in a script with
 * case or without (Arabic, CJK), or a number.
 */
const UNSPLITTABLE = /^(?:\p{Lu}?[\p{Ll}\p{Lt}\p{Lm}\p{Lo}]*|\p{N}+)$/u;
const BETWEEN_WORDS = /^[^\S\n]+$/;
/**
 * Particles that make phrasal verbs, which engineers also write as one word: "rolled back" and
 * "rollback", "locked out" and "lockout", "logging in" and "login", "set up" and "setup".
 */
const PARTICLES = new Set(["back", "out", "up", "down", "in", "on", "off", "over"]);

/**
 * Strips diacritics. Marks are dropped before decomposing too, which gives the same text: NFKD sorts a run
 * of combining marks in time that grows with the square of its length.
 */
function withoutMarks(text: string): string {
  return text.replace(/\p{M}+/gu, "").normalize("NFKD").replace(/\p{M}+/gu, "");
}

/** Lower-cases and strips diacritics. */
export function foldText(text: string): string {
  return withoutMarks(text).toLowerCase();
}

/** Stems already computed: a collection's vocabulary is small next to its word count. */
const stems = new Map<string, string>();
const MAX_CACHED_STEMS = 100_000;

/** Longer "words" (a run of CJK or of one letter) are kept as written: the stemmer's cost grows with the square of a word's length. */
const LONGEST_STEMMED_WORD = 64;

function stemOf(word: string): string {
  if (word.length > LONGEST_STEMMED_WORD) return word;
  let stemmed = stems.get(word);
  if (stemmed === undefined) {
    if (stems.size >= MAX_CACHED_STEMS) stems.clear();
    stems.set(word, (stemmed = stem(word)));
  }
  return stemmed;
}

/**
 * Irregular verb forms that no suffix stemmer joins to their verb ("kept" and "keep", "wrote", "written"
 * and "write"), from wink-lexicon's list; forms that are more often other words in engineering text keep
 * their own meaning ("bound", "left", "ground", "bit", "saw", "lay").
 */
const NOT_VERB_FORMS = new Set(["bit", "bound", "crew", "dove", "drug", "felt", "ground", "lay", "left", "lent", "lit", "might", "rent", "rose", "saw", "shore", "smelt", "spat", "stove", "wound"]);

const BASE_FORMS = new Map(Object.entries(irregularVerbs).filter(([form]) => !NOT_VERB_FORMS.has(form)));

function baseForm(word: string): string {
  return BASE_FORMS.get(word) ?? word;
}

function normalizeWord(raw: string): string | null {
  if (STOP_WORDS.has(raw)) return null;
  const word = baseForm(raw);
  if (STOP_WORDS.has(word)) return null;
  // A lone digit or letter carries no meaning of its own (version parts, list markers).
  if (word.length === 1) return null;
  return PLAIN_WORD.test(word) ? stemOf(word) : word;
}

/**
 * One word of a text as the index sees it: `forms` are the terms that match it exactly (a plain word's
 * stem; an identifier as written, run together and as a bare version), `parts` an identifier's pieces.
 */
export interface AnalysedWord {
  forms: string[];
  parts: string[];
}

/**
 * The most terms a text yields. A term has two characters or more, so 8,000 characters (a memory's limit) hold
 * about 4,000 of them; only compatibility characters that decompose into several letters each reach this
 * (U+FDFA is 18 letters in four words). Without it one such memory analysed to 24,000 terms, and recall over a
 * hundred of them held the event loop for half a second (docs/retrieval.md).
 */
export const MAX_TERMS_PER_TEXT = 4_096;

/**
 * The most characters a text's terms take, a space between each: twice a memory's longest text. Retrieval reads
 * and ranks each candidate's terms, so this bounds its work per candidate. 8,000 characters of prose take about
 * 9,500; 8,000 × U+FDFA took 24,600 (in two-byte letters) within MAX_TERMS_PER_TEXT.
 */
export const MAX_TERM_CHARACTERS_PER_TEXT = 16_384;

/**
 * A term's most characters; a longer one is cut, the same in texts and queries, so exact mentions still meet.
 * Without it a run of Hangul (three letters each after NFKD) or of CJK without spaces was one term as long as
 * the text.
 */
export const LONGEST_TERM = 128;

/** A term cut to LONGEST_TERM characters, never between the two halves of a surrogate pair. */
function withinLongestTerm(term: string): string {
  if (term.length <= LONGEST_TERM) return term;
  const high = term.charCodeAt(LONGEST_TERM - 1);
  return term.slice(0, high >= 0xd800 && high <= 0xdbff ? LONGEST_TERM - 1 : LONGEST_TERM);
}

/**
 * What a text's terms may still take. `take` admits a term, cut to LONGEST_TERM, while both bounds have room;
 * the first that does not fit ends the text, so a text cut short keeps its terms in order.
 */
function termBudget() {
  let terms = 0;
  let characters = 0; // the terms taken, joined by spaces, with the space before the next one
  let ended = false;
  return {
    get ended() {
      return ended;
    },
    take(term: string): string | null {
      const bounded = withinLongestTerm(term);
      ended ||= terms >= MAX_TERMS_PER_TEXT || characters + bounded.length > MAX_TERM_CHARACTERS_PER_TEXT;
      if (ended) return null;
      terms += 1;
      characters += bounded.length + 1;
      return bounded;
    },
  };
}

/**
 * The words of a text, in order, stop words dropped, within the bounds above. A word followed by a particle
 * also takes the phrasal verb run together as one of its forms (see PARTICLES).
 */
export function analyzeWords(text: string): AnalysedWord[] {
  const words: AnalysedWord[] = [];
  const budget = termBudget();
  const taken = (terms: readonly string[]) => terms.flatMap((term) => budget.take(term) ?? []);
  let previous: { word: AnalysedWord; stem: string; end: number } | null = null;
  const folded = withoutMarks(text);
  for (const match of folded.matchAll(RAW_TOKEN)) {
    if (budget.ended) break;
    const [raw] = match;
    const pieces = UNSPLITTABLE.test(raw) ? [raw] : splitIdentifier(raw);
    const afterWord = previous && BETWEEN_WORDS.test(folded.slice(previous.end, match.index));
    if (pieces.length === 1) {
      const lower = pieces[0]!.toLowerCase();
      if (afterWord && PARTICLES.has(lower)) previous!.word.forms.push(...taken([stemOf(previous!.stem + lower)]));
      const term = normalizeWord(lower);
      const kept = term === null ? null : budget.take(term);
      const word = kept === null ? null : { forms: [kept], parts: [] };
      if (word) words.push(word);
      previous = word && PLAIN_WORD.test(term!) ? { word, stem: term!, end: match.index + raw.length } : null;
      continue;
    }
    previous = null;
    // An identifier: its whole forms match exact mentions and other spellings, its parts loose ones.
    const whole = raw.toLowerCase();
    const forms = taken(STOP_WORDS.has(whole) ? [] : identifierForms(whole));
    const parts = taken(pieces.flatMap((piece) => normalizeWord(piece.toLowerCase()) ?? []));
    if (forms.length > 0 || parts.length > 0) words.push({ forms, parts });
  }
  return words;
}

/** An identifier's pieces: split at separators, case changes and letter-digit boundaries. */
function splitIdentifier(raw: string): string[] {
  return raw
    .split(SEPARATOR)
    .flatMap((piece) => piece.split(CAMEL_BOUNDARY))
    .flatMap((piece) => piece.split(LETTER_DIGIT_BOUNDARY))
    .map((piece) => ACRONYM_PLURAL.exec(piece)?.[1] ?? piece);
}

/** The index terms of a text, in order, repeats kept (term frequency matters to ranking). */
export function analyzeText(text: string): string[] {
  const terms: string[] = [];
  for (const { forms, parts } of analyzeWords(text)) terms.push(...forms, ...parts);
  return terms;
}

/**
 * An identifier as written (`_` read as `-`), run together when hyphenated, and a version without its
 * `v`. A form of letters only is stemmed like any word, so `ClickHouse`, `clickhouse` and `click-house`
 * all meet on one term.
 */
function identifierForms(whole: string): string[] {
  const written = whole.replaceAll("_", "-");
  const forms = [written];
  const runTogether = written.replaceAll("-", "");
  if (runTogether !== written && !SEPARATOR.test(runTogether)) forms.push(runTogether);
  const version = VERSION.exec(written)?.[1];
  if (version) forms.push(version);
  return [...new Set(forms.map((form) => (PLAIN_WORD.test(form) ? stemOf(form) : form)))];
}

/** Distinct query terms, in first-seen order. */
export function queryTerms(query: string): string[] {
  return [...new Set(analyzeText(query))];
}
