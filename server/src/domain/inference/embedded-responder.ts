import { analyzeText, describeAge, queryTerms, truncateToTokens } from "@engram/retrieval";
import type { TFinishReason } from "@engram/contract";
import type { Clock } from "../kernel/clock";
import type { GroundingMemory, ModelAnswer, ModelEvent, ModelRequest, Upstream } from "./upstream";

/** At most this many memories are quoted; the context block may hold more. */
const MAX_QUOTED = 5;
/** Memories up to this long are quoted whole; longer ones by their most relevant sentence. */
const WHOLE_TEXT_CHARS = 280;

const DISCLAIMER = "(Engram's embedded responder quotes stored memory; it is not a language model. Configure an upstream model for generated answers.)";

function sentencesOf(text: string): string[] {
  return text.split(/(?<=[.!?])\s+(?=[A-Z0-9"'(`[])/).map((s) => s.trim()).filter(Boolean);
}

/** The memory's text, or for a long one the sentence sharing most terms with the question (the first on ties). */
function extract(memory: GroundingMemory, questionTerms: ReadonlySet<string>): string {
  const text = memory.text.trim();
  if (text.length <= WHOLE_TEXT_CHARS) return text;
  let best = "";
  let bestScore = -1;
  for (const sentence of sentencesOf(text)) {
    const score = new Set(analyzeText(sentence).filter((term) => questionTerms.has(term))).size;
    if (score > bestScore) [best, bestScore] = [sentence, score];
  }
  return best.length > 0 && best.length < text.length ? `${best} …` : text;
}

function sourceLine(memory: GroundingMemory, index: number, now: Date): string {
  const about = memory.subject ? ` about ${memory.subject}` : "";
  return `[${index + 1}] ${memory.memoryKind}${about}, recorded ${describeAge(memory.createdAt, now)}, confidence ${memory.confidence.toFixed(2)} (${memory.id})`;
}

/**
 * The whole answer for a question and the memories retrieved for it; the same input always gives the same text.
 * Citing marks each quote with its number and lists the sources.
 */
export function composeAnswer(question: string, memories: readonly GroundingMemory[], now: Date, { cite = true, searched = true } = {}): string {
  if (!searched) {
    return `Organization memory was not searched for this request (memory is off, or the assistant has no search_memory capability), so I cannot answer it from memory. ${DISCLAIMER}`;
  }
  if (memories.length === 0) {
    return `The organization has no stored memory relevant to this question, so I cannot answer it from memory. ${DISCLAIMER}`;
  }
  const quoted = memories.slice(0, MAX_QUOTED);
  const terms = new Set(queryTerms(question));
  const count = quoted.length === 1 ? "1 stored memory" : `${quoted.length} stored memories`;
  const quotes = quoted.map((memory, i) => `- ${extract(memory, terms)}${cite ? ` [${i + 1}]` : ""}`);
  const sources = cite ? ["", "Sources:", ...quoted.map((memory, i) => sourceLine(memory, i, now))] : [];
  return [`From the organization's memory (${count}, most relevant first):`, "", ...quotes, ...sources, "", DISCLAIMER].join("\n");
}

/** Applies stop sequences (the answer ends before the first one) and max_tokens (the answer cut to count no more). */
export function limitAnswer(text: string, stop: string | string[] | null, maxTokens: number): ModelAnswer {
  let content = text;
  let finishReason: TFinishReason = "stop";
  for (const sequence of stop === null ? [] : Array.isArray(stop) ? stop : [stop]) {
    const at = content.indexOf(sequence);
    if (at >= 0) content = content.slice(0, at);
  }
  const cut = truncateToTokens(content, maxTokens);
  if (cut !== content) {
    content = cut;
    finishReason = "length";
  }
  return { content, finishReason };
}

/** Words with their trailing space: the pieces a streamed answer arrives in. */
function* piecesOf(text: string): Generator<string> {
  for (const match of text.matchAll(/\S+\s*|\s+/g)) yield match[0];
}

/**
 * The embedded default when no upstream model is configured: a deterministic, extractive and cited
 * summary of the memories retrieved for the latest user turn (or a plain statement that nothing relevant
 * is stored). It is a retrieval-grounded fallback that lets the whole flow be tried offline, not a
 * language model: it ignores temperature and penalties, and honours stop and max_tokens.
 */
export function embeddedResponder({ clock: now }: { clock: Clock }): Upstream {
  const answer = (request: ModelRequest) =>
    limitAnswer(
      composeAnswer(request.grounding.question, request.grounding.memories, now(), { cite: request.grounding.citeSources, searched: request.grounding.memorySearched }),
      request.stop,
      request.max_tokens,
    );

  return {
    kind: "embedded",
    async complete(request) {
      return answer(request);
    },
    async stream(request, signal) {
      const { content, finishReason } = answer(request);
      return (async function* (): AsyncGenerator<ModelEvent> {
        for (const piece of piecesOf(content)) {
          if (signal.aborted) return;
          yield { content: piece };
        }
        yield { finishReason };
      })();
    },
    async check() {
      return true;
    },
  };
}
