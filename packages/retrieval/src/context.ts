import { analyzeText } from "./analyze";
import type { TermCounts } from "./lexical";
import { type CountingWork, countTokens, countTokensWithin, tokenUpperBound, truncateToBytes, truncateToTokens } from "./token-count";

export type ContextMode = "full" | "compact";

export interface ContextMemory {
  id: string;
  text: string;
  subject: string | null;
  memoryKind: string;
  confidence: number;
  createdAt: Date;
  /** The memory's analysed terms (subject and text) when the caller has them, else they are computed. */
  terms?: TermCounts;
}

export interface AssembledContext {
  systemBlock: string;
  /** Ids of the memories that fit in the block, most useful first. */
  includedIds: string[];
  /** Ids left out because a more useful memory in the block says nearly the same. */
  mergedIds: string[];
  tokens: number;
}

/** Two memories whose term sets overlap this much (Jaccard) say the same thing for a model's purposes. */
export const NEAR_DUPLICATE_SIMILARITY = 0.8;

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const term of a) if (b.has(term)) shared++;
  return shared / (a.size + b.size - shared);
}

/**
 * The default budget leaves most of the advertised 8,192-token context for the conversation and the
 * answer: memory context should inform, not crowd out.
 */
export const DEFAULT_CONTEXT_TOKEN_BUDGET = 2048;

/**
 * Finding that a line does not fit costs counting up to the room left, for every such line. Past this
 * many budgets' worth of exact counting in one block, lines are measured by an upper bound instead, so
 * a hundred long memories cost little more than ten.
 */
const EXACT_COUNTING_BUDGETS = 4;

/**
 * Pre-tokens one block may have the tokenizer work out; a word seen before is a lookup. Past them, lines are
 * measured by the upper bound too, so a block of long memories of words never seen before (hashes, identifiers,
 * random letters) holds the event loop for milliseconds rather than a tenth of a second.
 */
export const MAX_WORKED_OUT_PER_BLOCK = 1_000;

/** Ends a memory cut to fit the block. */
const CUT_MARK = " …";
/** Fewer tokens than this of a memory say too little to be worth a line. */
const MIN_CUT_TOKENS = 16;

const HEADER = "What the organization knows that may help (most useful first):";
const EMPTY = "The organization has no stored memory relevant to this request.";

/**
 * Assembles the runtime context block a memory-augmented model receives as a system message: one
 * entry per memory, in the given order, until the token budget (counted with the o200k tokenizer) is
 * spent. Near-duplicates of a memory already in the block are merged into it (left out), and entries
 * that would overflow are dropped whole, but for one: when no memory fits whole, the most useful one is cut
 * to fit, so that a block given memories never says that nothing relevant is stored.
 */
export function assembleContext(
  memories: readonly ContextMemory[],
  options: { mode: ContextMode; now: Date; tokenBudget?: number },
): AssembledContext {
  const budget = options.tokenBudget ?? DEFAULT_CONTEXT_TOKEN_BUDGET;
  const lines: string[] = [HEADER];
  const includedIds: string[] = [];
  const mergedIds: string[] = [];
  const includedTerms: Array<Set<string>> = [];
  // Counting each line alone slightly overestimates the joined block (tokens merge across joins),
  // so the running sum is a safe, cheap bound; the reported figure is the block's exact count.
  let bound = countTokens(HEADER);
  let counted = 0;
  const work: CountingWork = { left: MAX_WORKED_OUT_PER_BLOCK };
  let mostUsefulLeftOut: { id: string; line: string; counted: boolean } | null = null;
  for (const memory of memories) {
    const terms = new Set(memory.terms?.counts.keys() ?? analyzeText(`${memory.subject ?? ""} ${memory.text}`));
    if (includedTerms.some((kept) => jaccard(kept, terms) >= NEAR_DUPLICATE_SIMILARITY)) {
      mergedIds.push(memory.id);
      continue;
    }
    const line = options.mode === "compact" ? compactLine(memory) : fullLine(memory, options.now);
    const room = budget - bound;
    const exact = counted <= EXACT_COUNTING_BUDGETS * budget && work.left > 0 ? countTokensWithin(`\n${line}`, room, work) : null;
    const lineTokens = exact ?? withinBound(`\n${line}`, room);
    counted += lineTokens === false ? room + 1 : lineTokens;
    if (lineTokens === false) {
      mostUsefulLeftOut ??= { id: memory.id, line, counted: exact !== null };
      continue;
    }
    lines.push(line);
    includedIds.push(memory.id);
    includedTerms.push(terms);
    bound += lineTokens;
  }
  const cut = includedIds.length === 0 && mostUsefulLeftOut ? cutToFit(mostUsefulLeftOut.line, budget - bound, mostUsefulLeftOut.counted) : null;
  if (cut) {
    lines.push(cut.line);
    includedIds.push(mostUsefulLeftOut!.id);
    bound += cut.tokens;
  }
  if (includedIds.length === 0) return { systemBlock: EMPTY, includedIds, mergedIds, tokens: countTokens(EMPTY) };
  const systemBlock = lines.join("\n");
  // Exact while work is left (the lines' words are known then), else the bound the lines were fitted by.
  const tokens = work.left > 0 ? countTokensWithin(systemBlock, Infinity, work) : null;
  return { systemBlock, includedIds, mergedIds, tokens: tokens || bound };
}

/**
 * The line cut to fit `room` (its joining newline included) and marked as cut, with its count; null when too
 * little of it would fit. A line counted exactly before has its words known, so it is cut by their counts;
 * one measured by its bound (the block's work was spent) is cut by its UTF-8 length, which is never less.
 */
function cutToFit(line: string, room: number, counted: boolean): { line: string; tokens: number } | null {
  const within = room - tokenUpperBound(`\n${CUT_MARK}`);
  if (within < MIN_CUT_TOKENS) return null;
  const cut = `${(counted ? truncateToTokens(line, within) : truncateToBytes(line, within)).trimEnd()}${CUT_MARK}`;
  const tokens = counted ? countTokensWithin(`\n${cut}`, room) : tokenUpperBound(`\n${cut}`);
  return tokens === false || tokens > room ? null : { line: cut, tokens };
}

function withinBound(text: string, room: number): number | false {
  const tokens = tokenUpperBound(text);
  return tokens <= room ? tokens : false;
}

function fullLine(memory: ContextMemory, now: Date): string {
  const about = memory.subject ? ` about ${memory.subject}` : "";
  const details = `${memory.memoryKind}${about}, ${describeAge(memory.createdAt, now)}, confidence ${memory.confidence.toFixed(2)}`;
  return `- [${details}] ${memory.text}`;
}

function compactLine(memory: ContextMemory): string {
  return memory.subject ? `- ${memory.subject}: ${memory.text}` : `- ${memory.text}`;
}

/** A short, human age such as "today", "3 days ago" or "5 months ago". */
export function describeAge(then: Date, now: Date): string {
  const days = Math.floor((now.getTime() - then.getTime()) / 86_400_000);
  if (days <= 0) return "today";
  if (days === 1) return "yesterday";
  if (days < 60) return `${days} days ago`;
  if (days < 730) return `${Math.floor(days / 30)} months ago`;
  return `${Math.floor(days / 365)} years ago`;
}
