import { countTokens } from "gpt-tokenizer";
import { describe, expect, it } from "vitest";
import { assembleContext, describeAge, MAX_WORKED_OUT_PER_BLOCK } from "../src/context";
import { countTerms } from "../src/lexical";
import { preTokensWorkedOut } from "../src/token-count";

const now = new Date("2026-11-22T12:00:00Z");
const memory = (id: string, text: string, daysAgo = 0) => ({
  id,
  text,
  subject: "payments",
  memoryKind: "fact",
  confidence: 0.75,
  createdAt: new Date(now.getTime() - daysAgo * 86_400_000),
});

describe("context assembly", () => {
  it("lists memories in order with kind, subject, age and confidence", () => {
    const block = assembleContext([memory("a", "Deploys need approval.", 3), memory("b", "Refunds take 5 days.")], { mode: "full", now });
    expect(block.systemBlock.split("\n")).toEqual([
      "What the organization knows that may help (most useful first):",
      "- [fact about payments, 3 days ago, confidence 0.75] Deploys need approval.",
      "- [fact about payments, today, confidence 0.75] Refunds take 5 days.",
    ]);
    expect(block.includedIds).toEqual(["a", "b"]);
    expect(block.tokens).toBe(countTokens(block.systemBlock));
  });

  it("writes one short line per memory in compact mode", () => {
    const block = assembleContext([memory("a", "Deploys need approval.")], { mode: "compact", now });
    expect(block.systemBlock.split("\n")[1]).toBe("- payments: Deploys need approval.");
  });

  it("never exceeds the token budget and drops whole entries", () => {
    const topics = ["ledger", "billing", "checkout", "search", "identity", "pricing", "shipping", "catalog", "refunds", "alerts"];
    const memories = Array.from({ length: 50 }, (_, i) =>
      memory(`m${i}`, `INC-${100 + i} hit the ${topics[i % 10]} service in region r${Math.floor(i / 10)}; see runbook ${topics[(i + 3) % 10]}-${i}.`),
    );
    const block = assembleContext(memories, { mode: "full", now, tokenBudget: 200 });
    expect(block.tokens).toBeLessThanOrEqual(200);
    expect(countTokens(block.systemBlock)).toBe(block.tokens);
    expect(block.includedIds.length).toBeGreaterThan(3);
    expect(block.includedIds.length).toBeLessThan(50);
    expect(block.includedIds).toEqual(memories.slice(0, block.includedIds.length).map((m) => m.id));
  });

  it("says plainly when nothing is known", () => {
    expect(assembleContext([], { mode: "full", now }).systemBlock).toBe("The organization has no stored memory relevant to this request.");
  });

  it("describes ages in human terms", () => {
    const ago = (days: number) => describeAge(new Date(now.getTime() - days * 86_400_000), now);
    expect([ago(0), ago(1), ago(10), ago(90), ago(800)]).toEqual(["today", "yesterday", "10 days ago", "3 months ago", "2 years ago"]);
  });
});

describe("near-duplicate merging", () => {
  it("keeps the more useful of two memories that say the same and reports the other as merged", () => {
    const block = assembleContext(
      [
        memory("a", "Staging resets every Sunday night at 02:00 UTC."),
        memory("b", "Staging resets every Sunday night at 02:00 UTC!"),
        memory("c", "Refunds over $500 need a second approver."),
      ],
      { mode: "compact", now },
    );
    expect(block.includedIds).toEqual(["a", "c"]);
    expect(block.mergedIds).toEqual(["b"]);
    expect(block.systemBlock).not.toContain("UTC!");
  });

  it("keeps memories that only share some words", () => {
    const block = assembleContext(
      [memory("a", "Payments deploys need approval from the payments lead."), memory("b", "Payments refunds need approval from finance.")],
      { mode: "compact", now },
    );
    expect(block.includedIds).toEqual(["a", "b"]);
  });
});

describe("context assembly of hostile memories", () => {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const cjk = () => String.fromCharCode(0x4e00 + Math.floor(random() * 20000));
  const run = (length: number) => Array.from({ length }, cjk).join("");
  // Words of five random letters, from a multiplicative hash of their place: each a pre-token not seen before.
  let placed = 0;
  const word = () => Array.from({ length: 5 }, (_, k) => String.fromCharCode(97 + ((Math.imul(++placed, 2654435761) >>> (k * 5)) % 26))).join("");
  const words = (length: number) => Array.from({ length: Math.ceil(length / 6) }, word).join(" ").slice(0, length);
  // Clauses of a thousand characters: each one pre-token, as CJK without spaces is.
  const prose = (length: number) => Array.from({ length }, (_, i) => (i % 1000 === 999 ? "，" : cjk())).join("");
  // Terms as the server passes them (analysed once, when the memory was written), distinct for each memory.
  const hostile = (id: string, text: string) => ({ ...memory(id, text), terms: countTerms([id]) });
  const timed = <T>(work: () => T): [T, number] => {
    const started = performance.now();
    return [work(), performance.now() - started];
  };

  it("measures memories of one long CJK run without under-counting, and quickly", () => {
    const memories = [...Array.from({ length: 10 }, (_, i) => hostile(`long${i}`, run(7900))), hostile("short", "Refunds take 5 days.")];
    const [block, ms] = timed(() => assembleContext(memories, { mode: "full", now }));
    expect(block.includedIds).toEqual(["short"]);
    expect(countTokens(block.systemBlock)).toBe(block.tokens);
    expect(ms).toBeLessThan(1000);

    const fits = hostile("fits", run(300));
    const small = assembleContext([fits], { mode: "compact", now, tokenBudget: 2000 });
    expect(small.includedIds).toEqual(["fits"]);
    expect(small.tokens).toBeGreaterThanOrEqual(countTokens(small.systemBlock));
  });

  it("works out a bounded number of new words in a block, and measures the rest by an upper bound", () => {
    for (const [count, length] of [[10, 7900], [40, 300]] as const) {
      const memories = [...Array.from({ length: count }, (_, i) => hostile(`w${length}-${i}`, words(length))), hostile("short", "Refunds take 5 days.")];
      const before = preTokensWorkedOut();
      const block = assembleContext(memories, { mode: "full", now });
      // The word that finds the work spent is the last one worked out.
      expect(preTokensWorkedOut() - before).toBeLessThanOrEqual(MAX_WORKED_OUT_PER_BLOCK + 1);
      expect(block.includedIds).toContain("short");
      expect(block.tokens).toBeGreaterThanOrEqual(countTokens(block.systemBlock));
      expect(block.tokens).toBeLessThanOrEqual(2048);
    }
  });

  it("keeps a hundred memories too long to fit cheap, and still takes a short one after them", () => {
    const memories = [...Array.from({ length: 100 }, (_, i) => hostile(`m${i}`, prose(8000))), hostile("short", "Refunds take 5 days.")];
    const [block, ms] = timed(() => assembleContext(memories, { mode: "full", now }));
    expect(block.includedIds).toEqual(["short"]);
    expect(ms).toBeLessThan(500);
  });
});

describe("a memory too long for the block on its own", () => {
  const sentence = (i: number) => `Step ${i}: drain the ledger queue, then restart the billing workers in region r${i % 7}.`;
  const long = (id: string, sentences: number) => memory(id, Array.from({ length: sentences }, (_, i) => sentence(i)).join(" "));

  it("is cut to fit rather than leaving the block to say nothing is stored", () => {
    const only = long("long", 400);
    expect(countTokens(only.text)).toBeGreaterThan(2048);
    const block = assembleContext([only], { mode: "full", now });
    expect(block.includedIds).toEqual(["long"]);
    const [header, line] = block.systemBlock.split("\n");
    expect(header).toBe("What the organization knows that may help (most useful first):");
    expect(line).toMatch(/^- \[fact about payments, today, confidence 0\.75\] Step 0: drain the ledger queue/);
    expect(line!.endsWith(" …")).toBe(true);
    expect(block.tokens).toBe(countTokens(block.systemBlock));
    expect(block.tokens).toBeLessThanOrEqual(2048);
    expect(block.tokens).toBeGreaterThan(2000);
  });

  it("is cut only when nothing fits whole: a shorter, less useful memory is listed instead", () => {
    const block = assembleContext([long("long", 400), memory("short", "Refunds take 5 days.")], { mode: "full", now });
    expect(block.includedIds).toEqual(["short"]);
    expect(block.systemBlock).not.toContain("…");
  });

  it("is cut within a small budget too, and left out when too little of it would fit", () => {
    const block = assembleContext([long("long", 40)], { mode: "compact", now, tokenBudget: 100 });
    expect(block.includedIds).toEqual(["long"]);
    expect(block.tokens).toBe(countTokens(block.systemBlock));
    expect(block.tokens).toBeLessThanOrEqual(100);
    const tiny = assembleContext([long("long", 40)], { mode: "compact", now, tokenBudget: 20 });
    expect(tiny.includedIds).toEqual([]);
    expect(tiny.systemBlock).toBe("The organization has no stored memory relevant to this request.");
  });

  it("of CJK clauses is cut by its counted words", () => {
    let seed = 5;
    const cjk = () => String.fromCharCode(0x4e00 + Math.floor(((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) * 20000));
    const clauses = Array.from({ length: 140 }, () => Array.from({ length: 20 }, cjk).join("")).join("，");
    const block = assembleContext([memory("cjk", `zookeeperquorum ${clauses}`)], { mode: "full", now });
    expect(block.includedIds).toEqual(["cjk"]);
    expect(block.systemBlock).toContain("zookeeperquorum");
    expect(block.tokens).toBeGreaterThanOrEqual(countTokens(block.systemBlock));
    expect(countTokens(block.systemBlock)).toBeLessThanOrEqual(2048);
  });

  it("of words never seen before is cut by its UTF-8 length once the block's work is spent", () => {
    let placed = 1_000_000;
    const word = () => Array.from({ length: 6 }, (_, k) => String.fromCharCode(97 + ((Math.imul(++placed, 2654435761) >>> (k * 5)) % 26))).join("");
    const text = Array.from({ length: 1300 }, word).join(" ");
    const before = preTokensWorkedOut();
    const block = assembleContext([memory("new", text)], { mode: "full", now });
    expect(preTokensWorkedOut() - before).toBeLessThanOrEqual(MAX_WORKED_OUT_PER_BLOCK + 1);
    expect(block.includedIds).toEqual(["new"]);
    expect(block.systemBlock.endsWith(" …")).toBe(true);
    expect(block.tokens).toBeGreaterThanOrEqual(countTokens(block.systemBlock));
    expect(block.tokens).toBeLessThanOrEqual(2048);
  });
});
