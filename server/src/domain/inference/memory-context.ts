import { inferenceLimits, memoryLimits, type TChatMessage } from "@engram/contract";
import { assembleContext, DEFAULT_CONTEXT_TOKEN_BUDGET } from "@engram/retrieval";
import { AppError } from "../kernel/errors";
import type { Retrieved, RetrieveInput } from "../retrieval/retrieval";
import { messageTokens, promptTokens } from "./model-tokens";
import type { GroundingMemory } from "./upstream";

/** Below this many tokens of room no memory line fits usefully, so retrieval is skipped. */
const MIN_MEMORY_TOKENS = 48;
/** The memory system message's framing (chat framing and the role), on top of the block itself. */
const MEMORY_MESSAGE_FRAMING = messageTokens({ role: "system", content: "" });

export interface MemoryInjection {
  /** The conversation as the model receives it: the memory system message after the leading system messages. */
  messages: TChatMessage[];
  /** Tokens of `messages` (with framing and reply priming). */
  promptTokens: number;
  /** The memories in the injected block, most useful first (empty when none was injected). */
  memories: GroundingMemory[];
  /** The latest user turn. */
  question: string;
}

/**
 * The retrieval query for a conversation: the latest user turn, then earlier user turns (newest first)
 * for context, within the retrieval query's 2,000 characters. Assistant turns are left out: they may
 * repeat memory injected before and would pull the same memories back regardless of the question.
 */
export function retrievalQuery(messages: readonly TChatMessage[]): { question: string; query: string } {
  const userTurns = messages.filter((m) => m.role === "user").map((m) => m.content.trim());
  const question = userTurns.at(-1) ?? "";
  let query = question.slice(0, memoryLimits.queryMaxLength);
  for (const earlier of userTurns.slice(0, -1).reverse()) {
    if (query.length + 1 + earlier.length > memoryLimits.queryMaxLength) break;
    query = `${query}\n${earlier}`;
  }
  return { question, query };
}

/** Inserts the memory message after the client's leading system messages, so their instructions come first. */
function withMemoryMessage(messages: readonly TChatMessage[], memory: TChatMessage): TChatMessage[] {
  const firstTurn = messages.findIndex((m) => m.role !== "system");
  const at = firstTurn === -1 ? messages.length : firstTurn;
  return [...messages.slice(0, at), memory, ...messages.slice(at)];
}

export type Retrieve = (input: RetrieveInput) => Promise<Retrieved>;

/**
 * Grounds a conversation in memory within the advertised context: prompt + max_tokens ≤ 8,192 tokens.
 * The conversation is never cut: if it does not fit with max_tokens, the request is refused (400). The
 * memory block gets what room is left, up to the retrieval engine's 2,048-token budget, and is trimmed
 * (whole memories dropped, least useful first) to fit.
 */
export async function injectMemory(input: {
  messages: TChatMessage[];
  maxTokens: number;
  retrieve: Retrieve | null;
  /** Memories retrieved; the context block keeps those that fit its budget. */
  retrieveLimit: number;
  now: Date;
}): Promise<MemoryInjection> {
  const { messages, maxTokens } = input;
  const { question, query } = retrievalQuery(messages);
  const budget = inferenceLimits.contextLength - maxTokens;
  const conversation = await promptTokens(messages, budget);
  if (conversation === null) {
    throw new AppError(
      "context_length_exceeded",
      `This model's maximum context length is ${inferenceLimits.contextLength} tokens, and max_tokens asks for ${maxTokens} of them: ` +
        `the messages must fit in ${budget} tokens and do not. Shorten the conversation or lower max_tokens.`,
      "messages",
    );
  }
  const plain: MemoryInjection = { messages, promptTokens: conversation, memories: [], question };
  const room = Math.min(DEFAULT_CONTEXT_TOKEN_BUDGET, budget - conversation - MEMORY_MESSAGE_FRAMING);
  if (!input.retrieve || room < MIN_MEMORY_TOKENS || query.trim() === "") return plain;

  const { response, terms } = await input.retrieve({ query, limit: input.retrieveLimit, includeContext: false, contextMode: "full" });
  if (response.memories.length === 0) return plain;
  // The terms retrieval analysed already spare the context assembly analysing each memory again.
  const grounding = response.memories.map((m) => ({ ...m, createdAt: new Date(m.createdAt), terms: terms.get(m.id) }));
  const block = assembleContext(grounding, { mode: "full", now: input.now, tokenBudget: room });
  if (block.includedIds.length === 0) return plain;
  const memoryMessage: TChatMessage = { role: "system", content: block.systemBlock };
  const byId = new Map(grounding.map((m) => [m.id, m]));
  return {
    messages: withMemoryMessage(messages, memoryMessage),
    // The block's exact count is known already: no need to tokenize it again.
    promptTokens: conversation + MEMORY_MESSAGE_FRAMING + block.tokens,
    memories: block.includedIds.map((id) => byId.get(id)!),
    question,
  };
}
