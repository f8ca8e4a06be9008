import { countTokens } from "@engram/retrieval";
import { describe, expect, it } from "vitest";
import { messageTokens, promptTokens, REPLY_PRIMING_TOKENS } from "../../src/domain/inference/model-tokens";

/** CJK clauses of 127 characters between commas: every pre-token as long as is counted exactly, and new. */
const cjkClauses = (length: number, offset: number) =>
  Array.from({ length }, (_, i) => ((i + offset) % 128 === 0 ? "，" : String.fromCharCode(0x4e00 + (((i + offset) * 7919) % 20000)))).join("");

/** Answers the count, and whether a callback queued for the event loop's next turn ran before it. */
async function countingWithATurn(count: () => Promise<number | null>): Promise<{ tokens: number | null; turnTaken: boolean }> {
  let turnTaken = false;
  setImmediate(() => (turnTaken = true));
  const tokens = await count();
  return { tokens, turnTaken };
}

describe("counting a prompt's tokens", () => {
  it("gives the event loop turns while it counts slow text, however many messages hold it", async () => {
    const oneMessage = [{ role: "user" as const, content: cjkClauses(300_000, 1) }];
    // With no time allowed in a slice, every pre-token worked out is followed by a turn.
    expect(await countingWithATurn(() => promptTokens(oneMessage, 8_176, 0))).toEqual({ tokens: null, turnTaken: true });

    const manyMessages = Array.from({ length: 40 }, (_, i) => ({ role: "user" as const, content: cjkClauses(1_000, 100_000 + i * 1_000) }));
    expect(await countingWithATurn(() => promptTokens(manyMessages, 8_176, 0))).toEqual({ tokens: null, turnTaken: true });
  });

  it("counts the same in turns as at once", async () => {
    const messages = [
      { role: "system" as const, content: "Answer from the ledger." },
      { role: "user" as const, content: cjkClauses(2_000, 7_000) },
    ];
    const exact = REPLY_PRIMING_TOKENS + messageTokens(messages[0]!) + messageTokens(messages[1]!);
    expect(exact).toBeGreaterThan(REPLY_PRIMING_TOKENS + countTokens(messages[1]!.content));
    expect(await promptTokens(messages, 8_176, 0)).toBe(exact);
    expect(await promptTokens(messages, 8_176)).toBe(exact);
    expect(await promptTokens(messages, exact)).toBe(exact);
    expect(await promptTokens(messages, exact - 1, 0)).toBeNull();
  });
});
