import { monitorEventLoopDelay } from "node:perf_hooks";
import { memoryScopes } from "@engram/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, startTestServer, type TestServer } from "@engram/test-support";
import { chatRequest, jsonOf, MODEL, tenantWithMemories } from "./support";

/**
 * Token counting on text whose pre-tokens are long (CJK without punctuation: the tokenizer's cost grows
 * with the square of one pre-token's length). The server runs in this process, so a request that holds
 * the event loop holds the other requests and the stall monitor here too. Bounds are loose so a busy
 * machine passes; `pnpm bench` (BENCH_SECTIONS=slow-input) holds the 100 ms target.
 */

/** Loose bounds: a request answered, and the longest stall of the event loop, on a busy machine. */
const PROMPT_MS = 3_000;
const STALL_MS = 750;

let server: TestServer;
beforeAll(async () => {
  // No upstream configured: the embedded responder answers.
  server = await startTestServer({ rateLimits: "off" });
});
afterAll(() => server?.stop());

/**
 * Distinct CJK characters without spaces or punctuation: one pre-token however long. Texts start at
 * different offsets, so no cache of an earlier test's work makes a later one fast.
 */
const cjk = (length: number, offset = 0) => Array.from({ length }, (_, i) => String.fromCharCode(0x4e00 + (((i + offset) * 7919) % 20000))).join("");

/** Runs `work` and answers its result with the longest event-loop stall seen meanwhile. */
async function measuringStalls<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  const tick = () => new Promise((resolve) => setTimeout(resolve, 20));
  histogram.enable();
  try {
    // The monitor's first timer only sets its baseline, and a stall is recorded when the timer finally runs.
    await tick();
    const result = await work();
    await tick();
    return { result, stallMs: histogram.max / 1e6 };
  } finally {
    histogram.disable();
  }
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
}

const recall = (token: string, body: object) => rawRequest(server.url, "/v1/memory/retrieve", { token, body: JSON.stringify(body) });

describe("token counting of long runs without spaces", () => {
  it("refuses a 60,000-character CJK message promptly, while another organization's recall answers promptly", async () => {
    const { token: sender } = await tenantWithMemories(server);
    const { token: neighbour } = await tenantWithMemories(server, [{ text: "Refunds over $500 need a second approver.", subject: "refunds" }]);
    const message = cjk(60_000);

    const [chat, neighbours] = await Promise.all([
      timed(chatRequest(server, sender, { model: MODEL, messages: [{ role: "user", content: message }] }).then(async (res) => ({ status: res.status, body: await jsonOf(res) }))),
      // Sent once the chat request is on its way, as another tenant's request arriving at the same time.
      new Promise((resolve) => setTimeout(resolve, 20)).then(() => timed(recall(neighbour, { query: "refunds approver", limit: 5 }))),
    ]);

    expect(chat.value.status).toBe(400);
    expect(chat.value.body).toMatchObject({ error: { code: "context_length_exceeded", param: "messages", type: "invalid_request_error" } });
    expect(neighbours.value.status).toBe(200);
    expect(neighbours.value.body.memories).toHaveLength(1);
    expect(chat.ms).toBeLessThan(PROMPT_MS);
    expect(neighbours.ms).toBeLessThan(PROMPT_MS);
  }, 120_000);

  it("recalls ten memories of 7,900 CJK characters with a context block without holding the server", async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ text: `Ledger note ${i}: ${cjk(7_900, i * 7_900)}`, subject: "ledger" }));
    const { token } = await tenantWithMemories(server, memories);

    const { result, stallMs } = await measuringStalls(() => recall(token, { query: "ledger note", limit: 100, includeContext: true }));

    expect(result.status).toBe(200);
    expect(result.body.memories).toHaveLength(10);
    // None fits the 2,048-token block.
    expect(result.body.context.stats.tokens).toBeLessThanOrEqual(2048);
    expect(stallMs).toBeLessThan(STALL_MS);
  }, 120_000);

  it("answers from long CJK memories and a long CJK question on the embedded responder without holding the server", async () => {
    // Nine memories too long for the context block, and one that fits it but not max_tokens.
    const memories = [
      ...Array.from({ length: 9 }, (_, i) => ({ text: `Ledger note ${i}: ${cjk(7_900, 3_333 + i * 7_900)}`, subject: "ledger" })),
      { text: `Ledger note 9: ${cjk(600, 1_234)}`, subject: "ledger" },
    ];
    const { token } = await tenantWithMemories(server, memories, [...memoryScopes, "inference:chat"]);
    // Fits the context (at most 3 tokens a character) though it is one pre-token of 1,900 characters.
    const question = `ledger note ${cjk(1_900, 5_678)}`;

    const { result, stallMs } = await measuringStalls(async () => {
      const res = await chatRequest(server, token, { model: MODEL, messages: [{ role: "user", content: question }], max_tokens: 100 });
      return { status: res.status, headers: res.headers, body: await jsonOf(res) };
    });

    expect(result.status, JSON.stringify(result.body).slice(0, 500)).toBe(200);
    expect(result.headers.get("x-engram-memories-used")).toBe("1");
    const content: string = result.body.choices[0].message.content;
    expect(content).toMatch(/^From the organization's memory \(1 stored memory, most relevant first\):\n\n- Ledger note 9: \p{Script=Han}+$/u);
    // The quoted memory far exceeds max_tokens: the answer is cut inside it, whole characters only.
    expect(result.body.choices[0].finish_reason).toBe("length");
    expect(result.body.usage.completion_tokens).toBeLessThanOrEqual(100);
    expect(stallMs).toBeLessThan(STALL_MS);
  }, 120_000);
});
