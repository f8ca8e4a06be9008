import type { TChatMessage } from "@engram/contract";
import { countTokens, countTokensWithinStepwise } from "@engram/retrieval";
import { inTurns } from "../kernel/in-turns";

/**
 * Chat token accounting with the o200k tokenizer, as OpenAI's chat models count: each message costs its
 * role and content plus 3 tokens of framing (a name 1 more), and every prompt 3 more to open the reply.
 */
export const MESSAGE_FRAMING_TOKENS = 3;
export const REPLY_PRIMING_TOKENS = 3;

const roleTokens = new Map<string, number>();
function tokensOfRole(role: string): number {
  let tokens = roleTokens.get(role);
  if (tokens === undefined) roleTokens.set(role, (tokens = countTokens(role)));
  return tokens;
}

function framingOf(message: TChatMessage): number {
  return MESSAGE_FRAMING_TOKENS + tokensOfRole(message.role) + (message.name ? countTokens(message.name) + 1 : 0);
}

export function messageTokens(message: TChatMessage): number {
  return framingOf(message) + countTokens(message.content);
}

/** How long counting a prompt may hold the event loop before other requests get a turn. */
export const COUNTING_SLICE_MS = 10;

/**
 * The prompt tokens of a conversation, or null as soon as it is known to exceed `limit` (a megabyte of
 * text is not tokenized whole just to be refused). Counted in slices of `sliceMs`, other requests served
 * between them.
 */
export function promptTokens(messages: readonly TChatMessage[], limit: number, sliceMs = COUNTING_SLICE_MS): Promise<number | null> {
  return inTurns(promptTokensStepwise(messages, limit), sliceMs);
}

function* promptTokensStepwise(messages: readonly TChatMessage[], limit: number): Generator<void, number | null, void> {
  let total = REPLY_PRIMING_TOKENS;
  for (const message of messages) {
    total += framingOf(message);
    if (total > limit) return null;
    const content = yield* countTokensWithinStepwise(message.content, limit - total);
    if (content === false) return null;
    total += content;
  }
  return total;
}

export { countTokens };
