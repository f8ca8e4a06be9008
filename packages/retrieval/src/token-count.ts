import { countTokens as countPreToken } from "gpt-tokenizer";
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";

/**
 * o200k token counts in time linear in the text: exact for ordinary text, an upper bound (never an under-count)
 * when a pre-token is too long to merge cheaply. Why and how: docs/retrieval.md, "Token counting".
 */

/** The longest pre-token, in UTF-16 code units, that is tokenized exactly; longer ones count as their UTF-8 length. */
export const LONGEST_EXACT_PRE_TOKEN = 128;

const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** UTF-8 bytes of the character at `i`, as the tokenizer encodes it (a lone surrogate as U+FFFD, three bytes). */
function utf8Bytes(text: string, i: number): 1 | 2 | 3 | 4 {
  const code = text.charCodeAt(i);
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) return 4;
  return 3;
}

/** The longest prefix of `text` whose UTF-8 length is at most `limit` bytes, cut between characters. */
function utf8Prefix(text: string, limit: number): { end: number; bytes: number } {
  let end = 0;
  let bytes = 0;
  while (end < text.length) {
    const size = utf8Bytes(text, end);
    if (bytes + size > limit) break;
    bytes += size;
    end += size === 4 ? 2 : 1;
  }
  return { end, bytes };
}

/**
 * Counts of pre-tokens seen before. Words repeat (the same memories go into block after block), and one call
 * into the tokenizer per pre-token costs 7-9 times a lookup here. Bounded: emptied when full.
 */
const knownCounts = new Map<string, number>();
const KNOWN_COUNTS_MAX = 50_000;
/** Pre-tokens whose counts the tokenizer worked out (5-30 µs each), not looked up, in this process. */
let workedOut = 0;

function tokensOf(preToken: string): number {
  if (preToken.length > LONGEST_EXACT_PRE_TOKEN) return utf8Prefix(preToken, Infinity).bytes;
  let count = knownCounts.get(preToken);
  if (count === undefined) {
    count = countPreToken(preToken, PLAIN_TEXT);
    workedOut += 1;
    if (knownCounts.size >= KNOWN_COUNTS_MAX) knownCounts.clear();
    knownCounts.set(preToken, count);
  }
  return count;
}

/** How many pre-tokens the tokenizer has worked out in this process: what counting work is measured in. */
export const preTokensWorkedOut = (): number => workedOut;

/**
 * How many more pre-tokens a caller lets the tokenizer work out, shared by the counts it is passed to and
 * spent by them: text of words never seen before (hashes, identifiers, random letters) costs a call into the
 * tokenizer per word, where words seen before cost a lookup.
 */
export interface CountingWork {
  left: number;
}

// The tokenizer's own pre-token pattern, copied so that no one else's use of its lastIndex affects ours.
const PRE_TOKEN = new RegExp(O200K_TOKEN_SPLIT_REGEX);

function preTokens(text: string) {
  return text.matchAll(PRE_TOKEN);
}

/** The text's o200k token count: exact for ordinary text, else an upper bound. */
export function countTokens(text: string): number {
  let total = 0;
  for (const [preToken] of preTokens(text)) total += tokensOf(preToken);
  return total;
}

/** A bound on the text's count in one cheap pass: its UTF-8 length (every token is at least one byte). */
export function tokenUpperBound(text: string): number {
  return utf8Prefix(text, Infinity).bytes;
}

/** The longest prefix of `text`, cut between characters, of at most `maxBytes` UTF-8 bytes: its bound, and so its count, is at most that. */
export function truncateToBytes(text: string, maxBytes: number): string {
  return text.slice(0, utf8Prefix(text, maxBytes).end);
}

/**
 * `countTokens(text)` when it is at most `limit`, else false; stops as soon as the limit is passed, so a
 * megabyte is not counted whole just to be refused. Given `work`, it spends it, and answers null once it has
 * worked out more pre-tokens than the work left allowed, before the count was known.
 */
export function countTokensWithin(text: string, limit: number): number | false;
export function countTokensWithin(text: string, limit: number, work: CountingWork): number | false | null;
export function countTokensWithin(text: string, limit: number, work?: CountingWork): number | false | null {
  // The loop of countTokensWithinStepwise without its steps: a generator costs the context block's hot path.
  const stopAt = work ? workedOut + work.left : Infinity;
  let total = 0;
  for (const [preToken] of preTokens(text)) {
    if (total >= limit) return spent(work, stopAt, false);
    total += tokensOf(preToken);
    if (total > limit) return spent(work, stopAt, false);
    if (workedOut > stopAt) return spent(work, stopAt, null);
  }
  return spent(work, stopAt, total);
}

/** `answer`, with what was worked out since `stopAt` was set taken from `work`. */
function spent<T>(work: CountingWork | undefined, stopAt: number, answer: T): T {
  if (work) work.left = Math.max(0, stopAt - workedOut);
  return answer;
}

/**
 * `countTokensWithin` as a generator that yields after each pre-token whose count it had to work out, so
 * that its caller can give the event loop a turn now and then: counting up to a limit of 8,192 tokens takes
 * tens of milliseconds for text whose every pre-token is long and new (CJK clauses, say).
 */
export function* countTokensWithinStepwise(text: string, limit: number): Generator<void, number | false, void> {
  let total = 0;
  for (const [preToken] of preTokens(text)) {
    // Every pre-token is at least one token: no need to count one that cannot fit.
    if (total >= limit) return false;
    const known = preToken.length <= LONGEST_EXACT_PRE_TOKEN ? knownCounts.get(preToken) : undefined;
    total += known ?? tokensOf(preToken);
    if (total > limit) return false;
    // A known count is a lookup; only working one out takes time worth pausing for.
    if (known === undefined) yield;
  }
  return total;
}

/** The longest prefix of a pre-token, cut between characters, that counts at most `room` tokens. */
function prefixWithin(preToken: string, room: number): string {
  // A long one counts as its UTF-8 length: as many characters as that many bytes hold (a shorter prefix counts no more).
  if (preToken.length > LONGEST_EXACT_PRE_TOKEN) return preToken.slice(0, utf8Prefix(preToken, room).end);
  const chars = Array.from(preToken);
  // Counts of a short pre-token's prefixes grow with their length, though not strictly: any prefix found within room will do.
  let fits = 0;
  let misses = chars.length;
  while (misses - fits > 1) {
    const middle = (fits + misses) >> 1;
    if (countTokens(chars.slice(0, middle).join("")) <= room) fits = middle;
    else misses = middle;
  }
  return chars.slice(0, fits).join("");
}

/**
 * `text` cut to count at most `maxTokens` tokens: whole pre-tokens while they fit, then as much of the
 * next one as fits, cut between characters.
 */
export function truncateToTokens(text: string, maxTokens: number): string {
  const starts: number[] = [];
  let total = 0;
  for (const match of preTokens(text)) {
    starts.push(match.index);
    const tokens = tokensOf(match[0]);
    if (total + tokens <= maxTokens) {
      total += tokens;
      continue;
    }
    let cut = text.slice(0, match.index) + prefixWithin(match[0], maxTokens - total);
    // The end of a cut can split into pre-tokens differently from the whole text (a whitespace run that
    // lost what followed it): step back whole pre-tokens until the cut counts within the limit.
    while (countTokensWithin(cut, maxTokens) === false) cut = text.slice(0, starts.pop() ?? 0);
    return cut;
  }
  return text;
}
