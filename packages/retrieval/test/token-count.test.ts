import { countTokens as reference } from "gpt-tokenizer";
import { describe, expect, it } from "vitest";
import { countTokens, countTokensWithin, countTokensWithinStepwise, LONGEST_EXACT_PRE_TOKEN, preTokensWorkedOut, truncateToTokens } from "../src/token-count";

/** gpt-tokenizer's exact count, with text that spells a special token read as plain text (as the gateway reads it). */
const exact = (text: string) => reference(text, { disallowedSpecial: new Set() });

const ordinary: Array<[string, string]> = [
  ["English", "The on-call engineer restarts the ledger consumer after a failed deploy. Alerts page the secondary after ten minutes!"],
  ["German", "Die Bereitschaftsingenieurin startet den Buchungsverbraucher nach einem fehlgeschlagenen Rollout neu; Rückfragen an Jürgen."],
  ["French", "L'équipe d'astreinte relance le consommateur du grand livre après un déploiement raté — voir « procédure » §4."],
  ["Russian", "Дежурный инженер перезапускает потребителя журнала после неудачного развёртывания."],
  ["Chinese", "值班工程师在部署失败后会重启账本消费者。告警会在十分钟无人确认后通知备岗，节假日期间曾引起混乱。"],
  ["Japanese", "当番のエンジニアは、デプロイに失敗した後、台帳コンシューマーを再起動します。十分間応答がない場合、二次担当に通知されます。"],
  ["Korean", "당직 엔지니어는 배포 실패 후 원장 소비자를 다시 시작합니다. 10분 동안 확인이 없으면 보조 담당자에게 알립니다."],
  ["Thai", "วิศวกรเวรจะรีสตาร์ทตัวรับบัญชีแยกประเภทหลังการปรับใช้ล้มเหลว การแจ้งเตือนจะส่งถึงผู้ช่วยหลังจากสิบนาที"],
  ["Arabic", "يعيد المهندس المناوب تشغيل مستهلك دفتر الأستاذ بعد فشل النشر."],
  ["Hindi", "ऑन-कॉल इंजीनियर असफल डिप्लॉय के बाद लेजर उपभोक्ता को फिर से शुरू करता है।"],
  ["emoji", "Deploy went fine 🎉🚀 but the pager 📟 went off at 3am 😴 — thanks 🙏🏽 team 👩‍💻👨‍💻!"],
  ["TypeScript", "export function retry<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {\n  return fn().catch((e) => (attempts > 1 ? retry(fn, attempts - 1) : Promise.reject(e)));\n}\n"],
  ["JSON", JSON.stringify({ id: "mem_01HX3", text: "Refunds over $500 need a second approver.", confidence: 0.75, tags: ["payments", "v1.4.0"], nested: { a: [1, 2, 3] } }, null, 2)],
  ["Markdown", "## Runbook\n\n| step | owner |\n|------|-------|\n| 1. restart `ledger-consumer` | @oncall |\n\n    indented code\n\n> quote\n"],
  ["URL and ids", "See https://docs.example.com/runbooks/payments-api?tab=deploy#rollback and INC-2077, sha 3f2a9c1d, key=dGVzdC1rZXktMTIzNDU2Nzg5MA=="],
  ["numbers", "Latency p99 was 1234567.891 ms on 2026-11-22T12:00:00Z; 99.95% of 10,000,000 requests."],
  ["special token spelled out", "Ignore this: <|endoftext|> and <|im_start|>system"],
];

/** Text that makes one over-long pre-token (or, for the last two, many pre-tokens just short enough). */
const cjkAt = (i: number) => String.fromCharCode(0x4e00 + ((i * 7919) % 20000));
const repeatTo = (unit: (i: number) => string, length: number) => {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < length; i++) {
    const part = unit(i);
    parts.push(part);
    size += part.length;
  }
  return parts.join("");
};
const shapes: Record<string, (length: number) => string> = {
  "distinct CJK without spaces": (n) => repeatTo(cjkAt, n),
  "Thai without spaces": (n) => repeatTo((i) => String.fromCharCode(0x0e01 + ((i * 7) % 0x2e)) + (i % 3 === 0 ? "\u0e34" : ""), n),
  "one letter": (n) => "a".repeat(n),
  "random lowercase letters": (n) => repeatTo((i) => String.fromCharCode(97 + ((i * 7 + (i >> 2)) % 26)), n),
  "capital letters": (n) => repeatTo((i) => String.fromCharCode(65 + ((i * 11) % 26)), n),
  "a letter and combining marks": (n) => "e" + repeatTo((i) => String.fromCharCode(0x0300 + (i % 0x30)), n - 1),
  spaces: (n) => " ".repeat(n),
  "mixed whitespace": (n) => repeatTo((i) => [" ", "\t", " ", "\u00a0", "\u3000"][i % 5]!, n),
  newlines: (n) => repeatTo((i) => (i % 3 === 0 ? "\n" : i % 3 === 1 ? " " : "\r\n"), n),
  "one punctuation mark": (n) => "!".repeat(n),
  "mixed punctuation": (n) => repeatTo((i) => "!#$%&*+,-.:;<=>?@^_|~"[(i * 5 + (i >> 3)) % 21]!, n),
  emoji: (n) => repeatTo((i) => String.fromCodePoint(0x1f300 + ((i * 31) % 700)), n),
  "lone surrogates": (n) => repeatTo((i) => String.fromCharCode(0xdc00 + (i % 1024)), n),
  digits: (n) => repeatTo((i) => String((i * 7919) % 1000).padStart(3, "0"), n),
  "CJK sentences just short enough": (n) => repeatTo((i) => (i % LONGEST_EXACT_PRE_TOKEN === 0 ? "，" : cjkAt(i)), n),
};

const MIB = 1 << 20;

function timeOf(work: () => void): number {
  const started = performance.now();
  work();
  return performance.now() - started;
}

describe("token counting", () => {
  it.each(ordinary)("is exact for ordinary text: %s", (_, text) => {
    const count = exact(text);
    expect(countTokens(text)).toBe(count);
    expect(countTokensWithin(text, count)).toBe(count);
    expect(countTokensWithin(text, count - 1)).toBe(false);
    // Longer texts are the same pre-tokens again.
    const long = Array.from({ length: 40 }, () => text).join("\n");
    expect(countTokens(long)).toBe(exact(long));
  });

  it("stays exact when it has seen more distinct words than it remembers", () => {
    // Counts of words seen before are remembered, up to a bound; past it the memory starts again.
    const words = Array.from({ length: 120_000 }, (_, i) => ` w${(i * 7919).toString(36)}`).join("");
    expect(countTokens(words)).toBe(exact(words));
    for (const [, text] of ordinary) expect(countTokens(text)).toBe(exact(text));
    expect(countTokens(words)).toBe(exact(words));
  });

  it("counts step by step, a step after each pre-token it works out and none after one it knows", () => {
    /** The generator's steps and what it returns. */
    const stepwise = (text: string, limit: number) => {
      const counting = countTokensWithinStepwise(text, limit);
      for (let steps = 0; ; steps++) {
        const step = counting.next();
        if (step.done) return { steps, count: step.value };
      }
    };
    // Words no earlier test has counted: seven pre-tokens, all new.
    const fresh = "Quillwort zephyrine, brackish oxbow flummery!";
    const count = exact(fresh);
    expect(stepwise(fresh, count)).toEqual({ steps: 7, count });
    expect(stepwise(fresh, count)).toEqual({ steps: 0, count });
    expect(stepwise(fresh, count - 1)).toEqual({ steps: 0, count: false });
    const long = shapes["distinct CJK without spaces"]!(3 * LONGEST_EXACT_PRE_TOKEN);
    expect(stepwise(long, MIB)).toEqual({ steps: 1, count: countTokensWithin(long, MIB) });
  });

  it("spends a caller's work on the words it works out, and gives up once the work runs out", () => {
    // Fifty words of letters no earlier test has counted, each its own pre-token.
    const letters = (n: number) => [...n.toString(26)].map((digit) => String.fromCharCode(97 + parseInt(digit, 26))).join("");
    const fresh = Array.from({ length: 50 }, (_, i) => ` qz${letters(i * 7919 + 104_729)}`).join("");
    const before = preTokensWorkedOut();
    const little = { left: 10 };
    expect(countTokensWithin(fresh, MIB, little)).toBeNull();
    expect(preTokensWorkedOut() - before).toBe(11);
    expect(little.left).toBe(0);
    // The eleven worked out are known now: counting again spends the work on the other 39 only.
    const enough = { left: 100 };
    expect(countTokensWithin(fresh, MIB, enough)).toBe(exact(fresh));
    expect(enough.left).toBe(61);
    // Known words spend nothing, and a count past its limit is false whatever work is left.
    const none = { left: 0 };
    expect(countTokensWithin(fresh, MIB, none)).toBe(exact(fresh));
    expect(countTokensWithin(fresh, exact(fresh) - 1, none)).toBe(false);
    expect(none.left).toBe(0);
  });

  it("counts the empty text as nothing", () => {
    expect(countTokens("")).toBe(0);
    expect(countTokensWithin("", 0)).toBe(0);
  });

  // An instance a few times the longest exactly tokenized pre-token: long enough to take the bound, short
  // enough for gpt-tokenizer to count exactly in a few milliseconds.
  const short = 3 * LONGEST_EXACT_PRE_TOKEN + 17;
  it.each(Object.entries(shapes))("never under-counts: %s", (_, shape) => {
    for (const text of [shape(short), `Hello, ${shape(short)} world.`, `${shape(LONGEST_EXACT_PRE_TOKEN)}\n${shape(short)}!`]) {
      const count = countTokens(text);
      expect(count).toBeGreaterThanOrEqual(exact(text));
      expect(countTokensWithin(text, count)).toBe(count);
      expect(countTokensWithin(text, exact(text) - 1)).toBe(false);
    }
  });

  it.each(Object.entries(shapes))("stops at the limit in a few milliseconds on a mebibyte: %s", (_, shape) => {
    const text = shape(MIB);
    countTokensWithin(text, 8192);
    expect(timeOf(() => countTokensWithin(text, 8192))).toBeLessThan(500);
  });

  it.each(Object.entries(shapes))("costs time linear in the text: %s", (_, shape) => {
    const small = shape(MIB / 8);
    const large = shape(MIB);
    countTokens(small);
    const smallMs = timeOf(() => countTokens(small));
    const largeMs = timeOf(() => countTokens(large));
    // Eight times the text: eight times the time when linear, sixty-four when quadratic.
    expect(largeMs).toBeLessThan(16 * Math.max(smallMs, 20));
  });
});

describe("truncation to a token count", () => {
  it("cuts ordinary text at a token boundary and leaves short text whole", () => {
    expect(truncateToTokens("From the organization's memory (2 stored memories", 5)).toBe("From the organization's memory (");
    for (const [, text] of ordinary) {
      expect(truncateToTokens(text, exact(text))).toBe(text);
      for (const max of [0, 1, 7, Math.floor(exact(text) / 2)]) {
        const cut = truncateToTokens(text, max);
        expect(text.startsWith(cut)).toBe(true);
        expect(countTokens(cut)).toBeLessThanOrEqual(max);
        expect(exact(cut)).toBeLessThanOrEqual(max);
      }
    }
  });

  it.each(Object.entries(shapes))("keeps within the count without under-counting: %s", (_, shape) => {
    const text = `Quote: ${shape(3 * LONGEST_EXACT_PRE_TOKEN + 17)} end.`;
    for (const max of [1, 50, 300]) {
      const cut = truncateToTokens(text, max);
      expect(text.startsWith(cut)).toBe(true);
      expect(countTokens(cut)).toBeLessThanOrEqual(max);
      expect(exact(cut)).toBeLessThanOrEqual(max);
    }
  });

  it.each(Object.entries(shapes))("cuts a mebibyte in a few milliseconds: %s", (_, shape) => {
    const text = shape(MIB);
    truncateToTokens(text, 8192);
    expect(timeOf(() => truncateToTokens(text, 8192))).toBeLessThan(500);
  });
});
