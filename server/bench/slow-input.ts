/**
 * Slow inputs: the longest time one request holds the server's event loop, for texts built so that one
 * pre-token is as long as the field allows (the tokenizer's cost grows with the square of a pre-token's
 * length) and a few shapes near them. Each shape goes to chat completions at the 1 MiB body limit, to
 * encode (memories of 8,000 characters) and recall with a context block (limit 100, a 2,000-character
 * query), and to the embedded responder (a question as long as the context allows, and a memory it quotes
 * and must cut at max_tokens). Wide bodies follow, then a scope of long memories of distinct words: the
 * MCP batches that store them, the first recall, which holds the scope's newest terms in process, writes of
 * such texts sent together (encodes and events, written a bounded batch at a time) and a reflection run over
 * them; then recalls and a reflection run over memories of the most expanding characters, and last the
 * console's lists at their widest (bench/console-lists.ts). The server runs in this process and the requests
 * come from a worker thread, so the event-loop monitor sees only the server's work.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { DEFAULT_MODEL_ID, memoryScopes } from "@engram/contract";
import { countTokens } from "@engram/retrieval";
import { DEFAULT_AUTH_CACHE_MS } from "../src/domain/access/access-tokens";
import { MAX_BODY_BYTES } from "../src/http/body";
import { createLogger } from "../src/logger";
import { startServer } from "../src/server";
import { fillConsoleLists } from "./console-lists";

/** No request may hold the event loop longer than this. */
export const TARGET_HOLD_MS = 100;
const MEMORIES_PER_SHAPE = 10;
/** Memories of 8,000 characters of distinct words in one scope: more terms than a scope holds in process. */
const LONG_MEMORIES = 500;
/** Writes of such memories sent together: the group commit would write them all in one turn, unbounded. */
const WRITES_AT_ONCE = 32;
/** Memories of 8,000 × U+FDFA in one scope: every recall's hundred candidates bring the most terms a text can. */
const EXPANDING_MEMORIES = 200;

const cjkAt = (i: number) => String.fromCharCode(0x4e00 + ((i * 7919) % 20000));
/** Five letters that differ from one `i` to the next, from a multiplicative hash. */
const randomWord = (i: number) => Array.from({ length: 5 }, (_, k) => String.fromCharCode(97 + ((Math.imul(i + 1, 2654435761) >>> (k * 5)) % 26))).join("");
/** `unit(i)` for i = offset, offset + 1, … joined until `length` UTF-16 code units. */
function build(unit: (i: number) => string, length: number, offset: number): string {
  const parts: string[] = [];
  for (let size = 0, i = offset; size < length; i++) {
    const part = unit(i);
    parts.push(part);
    size += part.length;
  }
  return parts.join("").slice(0, length);
}

/** Each shape, as `length` code units; a different `offset` makes a different text of the same shape. */
const SHAPES: Record<string, (length: number, offset: number) => string> = {
  "distinct CJK without spaces": (n, o) => build(cjkAt, n, o * 7_777),
  "Thai without spaces": (n, o) => build((i) => String.fromCharCode(0x0e01 + ((i * 7) % 0x2e)) + (i % 3 === 0 ? "\u0e34" : ""), n, o * 101),
  "one letter": (n, o) => String.fromCharCode(97 + (o % 26)).repeat(n),
  "random lowercase words": (n, o) => build((i) => `${randomWord(i)} `, n, o * 1_621),
  "random lowercase letters": (n, o) => build((i) => String.fromCharCode(97 + ((i * 7 + (i >> 2)) % 26)), n, o * 1_009),
  "capital letters": (n, o) => build((i) => String.fromCharCode(65 + ((i * 11 + (i >> 3)) % 26)), n, o * 1_013),
  "a letter and combining marks": (n, o) => "e" + build((i) => String.fromCharCode(0x0300 + (i % 0x30)), n - 1, o),
  spaces: (n, o) => `${o}${" ".repeat(n - String(o).length)}`,
  "mixed whitespace": (n, o) => build((i) => [" ", "\t", " ", "\u00a0", "\u3000"][i % 5]!, n, o),
  "newlines and CRLF": (n, o) => build((i) => (i % 3 === 0 ? "\n" : i % 3 === 1 ? " " : "\r\n"), n, o),
  "one punctuation mark": (n, o) => "!?.-*=#"[o % 7]!.repeat(n),
  "mixed punctuation": (n, o) => build((i) => "!#$%&*+,-.:;<=>?@^_|~"[(i * 5 + (i >> 3)) % 21]!, n, o * 37),
  emoji: (n, o) => build((i) => String.fromCodePoint(0x1f300 + ((i * 31) % 700)), n, o * 53),
  "lone surrogates": (n, o) => build((i) => String.fromCharCode(0xdc00 + (i % 1024)), n, o * 7),
  digits: (n, o) => build((i) => String((i * 7919) % 1000).padStart(3, "0"), n, o * 331),
  "CJK clauses just short of the exact limit": (n, o) => build((i) => (i % 128 === 0 ? "，" : cjkAt(i)), n, o * 7_777),
  // Each decomposes (NFKD) into 18 letters in four words: the most a text's terms can take (MAX_TERM_CHARACTERS_PER_TEXT).
  "expanding compatibility characters (U+FDFA)": (n, o) => `${o} ${"\ufdfa".repeat(n - String(o).length - 1)}`,
  // Each syllable decomposes into three letters: one word three times the text's length, before LONGEST_TERM.
  "Hangul without spaces": (n, o) => build((i) => String.fromCharCode(0xac00 + ((i * 7919) % 11_172)), n, o * 131),
  "camelCase pairs": (n, o) => build((i) => (i % 2 === 0 ? "a" : String.fromCharCode(66 + ((i + o) % 25))), n, o),
  "English prose (control)": (n, o) =>
    build((i) => `${["The", "ledger", "consumer", "restarts", "after", "a", "failed", "deploy", `#${i}`, "and", "pages", "on-call."][i % 12]} `, n, o * 12),
};

type Path = "chat 1 MiB" | "encode" | "recall+context" | "embedded";
const PATHS: Path[] = ["chat 1 MiB", "encode", "recall+context", "embedded"];

export interface SlowInputRow {
  shape: string;
  /** The longest hold of any request on each path, in milliseconds. */
  holds: Record<Path, number>;
}

/** A body built to be slow for what reads its structure, the longest hold while it was answered, and its status. */
export interface WideBodyRow {
  body: string;
  status: number;
  ms: number;
}

export interface SlowInputResult {
  rows: SlowInputRow[];
  wide: WideBodyRow[];
}

const manyKeys = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i]));
const mcpCall = (id: number, name: string, args: Record<string, unknown>) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
const LEDGER_WORDS = ["ledger", "deploy", "rotation", "incident", "billing", "queue", "cache", "schema", "replica", "token"];
const LEDGER_QUERY = Array(400).fill(LEDGER_WORDS).flat().join(" ").slice(0, 2_000);

/** A body sent as written rather than serialized: JSON too deep for JSON.stringify. */
class JsonText {
  constructor(readonly text: string) {}
}

/** Bodies with as many fields, items or calls as a route's limit holds (1 MiB, 256 KiB for events), or as it reads before refusing them. */
const WIDE_BODIES: Array<{ body: string; path: string; send: () => unknown; expect: number[] }> = [
  { body: "event metadata, 60,000 keys (past the route's 256 KiB)", path: "/v1/memory/events", send: () => ({ type: "deploy.completed", text: "wide", metadata: manyKeys(60_000) }), expect: [413] },
  { body: "event metadata, 18,000 keys", path: "/v1/memory/events", send: () => ({ type: "deploy.completed", text: "wide", metadata: manyKeys(18_000) }), expect: [400] },
  { body: "event metadata, 4,990 keys", path: "/v1/memory/events", send: () => ({ type: "deploy.completed", text: "wide", metadata: manyKeys(4_990) }), expect: [400] },
  {
    body: "MCP send_event, metadata of 60,000 keys (within MCP's 1 MiB)",
    path: "/mcp",
    send: () => mcpCall(1, "send_event", { type: "deploy.completed", text: "wide", metadata: manyKeys(60_000) }),
    expect: [400],
  },
  { body: "MCP body of one string of 500,000 escaped quotes", path: "/mcp", send: () => '"'.repeat(500_000), expect: [400] },
  { body: "MCP body of 500,000 nested lists", path: "/mcp", send: () => new JsonText(`${"[".repeat(500_000)}${"]".repeat(500_000)}`), expect: [400] },
  { body: "event metadata, 120,000 list items", path: "/v1/memory/events", send: () => ({ type: "deploy.completed", text: "wide", metadata: { a: Array(120_000).fill(1) } }), expect: [400] },
  { body: "chat, 30,000 messages", path: "/v1/chat/completions", send: () => ({ model: DEFAULT_MODEL_ID, messages: Array(30_000).fill({ role: "user", content: "x" }) }), expect: [400] },
  { body: "chat, 1,600 messages", path: "/v1/chat/completions", send: () => ({ model: DEFAULT_MODEL_ID, messages: Array(1_600).fill({ role: "user", content: "x" }) }), expect: [400] },
  {
    body: "MCP batch, 100 recalls (limit 100, 2,000-character query)",
    path: "/mcp",
    send: () => Array.from({ length: 100 }, (_, i) => mcpCall(i, "recall", { query: LEDGER_QUERY, limit: 100 })),
    expect: [200],
  },
];

/** `text` cut so that `wrap(text)` as JSON fits the body limit. */
function atBodyLimit(shape: (length: number, offset: number) => string, wrap: (text: string) => unknown): string {
  let length = MAX_BODY_BYTES;
  for (;;) {
    const text = shape(length, 0);
    const bytes = Buffer.byteLength(JSON.stringify(wrap(text)));
    if (bytes <= MAX_BODY_BYTES) return text;
    length = Math.floor((length * MAX_BODY_BYTES) / bytes) - 64;
  }
}

/** The shape as long as a question can be and still fit the context with `maxTokens` to answer. */
function fittingQuestion(shape: (length: number, offset: number) => string, tokens: number): string {
  let length = 64;
  while (countTokens(`ledger note ${shape(length * 2, 3)}`) <= tokens && length < 64_000) length *= 2;
  return `ledger note ${shape(length, 3)}`;
}

// Plain JavaScript for the worker, so it needs no TypeScript loader: sends each request it is given, or all of
// a message's bodies at once, answering the first status that differs from the others' (or the common one).
const CLIENT = `
const { parentPort } = require("node:worker_threads");
async function send(url, token, cookie, body) {
  try {
    // Accepting event streams too, as an MCP client must; every other route answers JSON all the same.
    const headers = cookie ? { cookie } : { authorization: "Bearer " + token, "content-type": "application/json", accept: "application/json, text/event-stream" };
    const response = await fetch(url, body ? { method: "POST", headers, body } : { headers });
    const text = await response.text();
    return { status: response.status, text: response.status >= 300 ? text.slice(0, 300) : "" };
  } catch (error) {
    return { status: 0, text: String(error) };
  }
}
parentPort.on("message", async ({ url, token, cookie, body, bodies }) => {
  const answers = await Promise.all((bodies ?? [body]).map((each) => send(url, token, cookie, each)));
  parentPort.postMessage(answers.find((answer) => answer.status !== answers[0].status) ?? answers[0]);
});`;

export async function benchSlowInput(): Promise<SlowInputResult> {
  const dir = mkdtempSync(join(tmpdir(), "engram-bench-slow-"));
  const databaseFile = join(dir, "engram.db");
  // No upstream configured: chat completions are answered by the embedded responder.
  const server = await startServer(
    { port: 0, host: "127.0.0.1", dataDir: tmpdir(), database: { provider: "sqlite", file: databaseFile }, logLevel: "silent", authCacheMs: DEFAULT_AUTH_CACHE_MS, rateLimits: "off" },
    createLogger("silent"),
  );
  const client = new Worker(CLIENT, { eval: true });
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

  /** Sends one request from the worker and answers the longest hold of the event loop while it was served. */
  async function hold(path: string, token: string, body: unknown, expect: number[]): Promise<{ ms: number; status: number }> {
    const bytes = new TextEncoder().encode(body instanceof JsonText ? body.text : JSON.stringify(body));
    return measured({ url: `${server.url}${path}`, token, body: bytes }, [bytes.buffer], expect);
  }
  /** The same for many requests to one route sent at once; the hold is the longest while any was served. */
  async function holdAtOnce(path: string, token: string, bodies: unknown[], expect: number[]): Promise<{ ms: number; status: number }> {
    return measured({ url: `${server.url}${path}`, token, bodies: bodies.map((body) => JSON.stringify(body)) }, [], expect);
  }
  /** The same for a signed-in person's GET. */
  const read = (path: string, cookie: string) => measured({ url: `${server.url}${path}`, cookie }, [], [200]);

  async function measured(message: { url: string; token?: string; cookie?: string; body?: Uint8Array; bodies?: string[] }, transfer: ArrayBuffer[], expect: number[]): Promise<{ ms: number; status: number }> {
    // The monitor's first timer only sets its baseline, and a hold is recorded when the timer finally runs.
    histogram.reset();
    histogram.enable();
    await tick();
    const answered = new Promise<{ status: number; text: string }>((resolve) => client.once("message", resolve));
    client.postMessage(message, transfer);
    const { status, text } = await answered;
    await tick();
    histogram.disable();
    if (!expect.includes(status)) throw new Error(`${message.url} answered ${status}: ${text}`);
    return { ms: histogram.max / 1e6, status };
  }

  /** The longest hold while a reflection run over the scope goes from its start to its end. */
  async function reflectionHold(scope: { orgId: string; environment: "production" }): Promise<number> {
    histogram.reset();
    histogram.enable();
    await tick();
    await server.services.reflectionRunner.start(scope, "person", "bench");
    await server.services.reflectionRunner.idle();
    await tick();
    histogram.disable();
    return histogram.max / 1e6;
  }

  const rows: SlowInputRow[] = [];
  const wide: WideBodyRow[] = [];
  try {
    const { organizations, tokens } = server.services;
    // The first round warms the JIT and is not reported: its holds are compilation, not the inputs.
    const rounds: Array<[string, (length: number, offset: number) => string]> = [["warm-up", (n, o) => SHAPES["English prose (control)"]!(n, o + 1_000)], ...Object.entries(SHAPES)];
    for (const [name, shape] of rounds) {
      const org = await organizations.create({ name: `slow-${name}` });
      const { token } = await tokens.create({ orgId: org.id, name: "bench", scopes: [...memoryScopes, "inference:chat"], environment: "production" });
      const holds = Object.fromEntries(PATHS.map((path) => [path, 0])) as Record<Path, number>;
      const record = (path: Path, answer: { ms: number; status: number }) => {
        holds[path] = Math.max(holds[path], answer.ms);
        return answer.status;
      };

      // Refusals are answers too: the context is too long, or a memory field holds an unpaired surrogate.
      const chat = (content: string, maxTokens: number) => ({ model: DEFAULT_MODEL_ID, messages: [{ role: "user", content }], max_tokens: maxTokens });
      const message = atBodyLimit(shape, (text) => chat(text, 16));
      record("chat 1 MiB", await hold("/v1/chat/completions", token, chat(message, 16), [200, 400]));

      for (let i = 0; i < MEMORIES_PER_SHAPE; i++) {
        const text = `Ledger note ${i}: ${shape(7_900, i + 1)}`;
        record("encode", await hold("/v1/memory", token, { text, subject: "ledger" }, [201, 400]));
      }
      for (const query of ["ledger note", `ledger ${shape(1_990, 2)}`]) {
        record("recall+context", await hold("/v1/memory/retrieve", token, { query, limit: 100, includeContext: true }, [200, 400]));
      }

      // One memory short enough for the context block, so the embedded responder quotes it and cuts it at max_tokens.
      await hold("/v1/memory", token, { text: `Ledger note quoted: ${shape(600, 4)}`, subject: "ledger" }, [201, 400]);
      record("embedded", await hold("/v1/chat/completions", token, chat("What is in the ledger note?", 40), [200]));
      record("embedded", await hold("/v1/chat/completions", token, chat(fittingQuestion(shape, 5_000), 1_000), [200, 400]));
      if (name !== "warm-up") rows.push({ shape: name, holds });
    }

    const org = await organizations.create({ name: "slow-wide-bodies" });
    const { token } = await tokens.create({ orgId: org.id, name: "bench", scopes: [...memoryScopes, "inference:chat"], environment: "production" });
    // Memories for the batch's recalls to rank, sharing the query's words.
    const note = (i: number) => `Note ${i}: the ${LEDGER_WORDS[i % 10]} ${LEDGER_WORDS[(i * 3) % 10]} runbook names ${LEDGER_WORDS[(i * 7) % 10]} owners.`;
    await hold("/mcp", token, Array.from({ length: 100 }, (_, i) => mcpCall(i, "remember", { text: note(i) })), [200]);
    for (const { body, path, send, expect } of WIDE_BODIES) {
      const { ms, status } = await hold(path, token, send(), expect);
      wide.push({ body, status, ms });
    }

    // A scope of long memories whose words are all distinct, held in process once it is first recalled.
    const long = await organizations.create({ name: "slow-long-memories" });
    const longToken = (await tokens.create({ orgId: long.id, name: "bench", scopes: [...memoryScopes], environment: "production" })).token;
    let stored = { ms: 0, status: 0 };
    for (let batch = 0; batch < LONG_MEMORIES / 100; batch++) {
      const calls = Array.from({ length: 100 }, (_, i) => mcpCall(i, "remember", { text: `Ledger note ${batch * 100 + i}: ${SHAPES["random lowercase words"]!(7_900, batch * 100 + i)}` }));
      const answer = await hold("/mcp", longToken, calls, [200]);
      if (answer.ms > stored.ms) stored = answer;
    }
    wide.push({ body: `MCP batch, 100 remembers of 8,000 characters of distinct words`, ...stored });
    wide.push({ body: `recall, first over ${LONG_MEMORIES} such memories`, ...(await hold("/v1/memory/recall", longToken, { query: "ledger note", limit: 10 }, [200])) });
    const longText = (i: number) => `Ledger note ${i}: ${SHAPES["random lowercase words"]!(7_900, i)}`;
    const atOnce = (offset: number) => Array.from({ length: WRITES_AT_ONCE }, (_, i) => longText(offset + i));
    wide.push({ body: `${WRITES_AT_ONCE} encodes of such memories at once`, ...(await holdAtOnce("/v1/memory", longToken, atOnce(LONG_MEMORIES).map((text) => ({ text })), [201])) });
    const events = atOnce(LONG_MEMORIES + WRITES_AT_ONCE).map((text) => ({ type: "note.recorded", text }));
    wide.push({ body: `${WRITES_AT_ONCE} events of such texts at once`, ...(await holdAtOnce("/v1/memory/events", longToken, events, [201])) });
    wide.push({ body: "a reflection run over such memories", status: 200, ms: await reflectionHold({ orgId: long.id, environment: "production" }) });

    // A scope of memories whose terms take the most characters a text's can, all matching one word.
    const expanding = await organizations.create({ name: "slow-expanding-memories" });
    const expandingToken = (await tokens.create({ orgId: expanding.id, name: "bench", scopes: [...memoryScopes], environment: "production" })).token;
    const expandingText = SHAPES["expanding compatibility characters (U+FDFA)"]!;
    for (let i = 0; i < EXPANDING_MEMORIES; i++) await hold("/v1/memory", expandingToken, { text: expandingText(8_000, i) }, [201]);
    const fdfa = "\ufdfa";
    wide.push({ body: `recall of U+FDFA, first over ${EXPANDING_MEMORIES} memories of 8,000 of it`, ...(await hold("/v1/memory/recall", expandingToken, { query: fdfa }, [200])) });
    const widest = { query: fdfa.repeat(2_000), limit: 100, includeContext: true };
    wide.push({ body: "retrieve over them, 2,000 × U+FDFA, limit 100, context", ...(await hold("/v1/memory/retrieve", expandingToken, widest, [200])) });
    wide.push({ body: "a reflection run over them (they are all duplicates)", status: 200, ms: await reflectionHold({ orgId: expanding.id, environment: "production" }) });

    const { cookie, lists } = await fillConsoleLists(server, databaseFile);
    for (const { name, path } of lists) {
      // The first read warms the list's code, as the warm-up round does for the shapes.
      await read(path, cookie);
      wide.push({ body: name, ...(await read(path, cookie)) });
    }
  } finally {
    await client.terminate();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { rows, wide };
}

/** The tables of holds per shape and path and per wide body, and the longest beside the target with PASS or FAIL. */
export function formatSlowInput({ rows, wide }: SlowInputResult): string {
  const width = Math.max(...rows.map((row) => row.shape.length));
  const lines = [
    "Slow inputs: longest event-loop hold of one request (ms), SQLite, embedded responder",
    "",
    `${"shape".padEnd(width)}  ${PATHS.map((path) => path.padStart(16)).join("")}`,
    ...rows.map((row) => `${row.shape.padEnd(width)}  ${PATHS.map((path) => row.holds[path].toFixed(1).padStart(16)).join("")}`),
  ];
  const bodyWidth = Math.max(...wide.map((row) => row.body.length));
  lines.push(
    "",
    "Wide bodies and a scope of long memories: longest event-loop hold of one request, or of requests sent together (ms)",
    "",
    `${"body".padEnd(bodyWidth)}  status      hold`,
    ...wide.map((row) => `${row.body.padEnd(bodyWidth)}  ${String(row.status).padStart(6)}${row.ms.toFixed(1).padStart(10)}`),
  );
  const worst = [
    ...rows.flatMap((row) => PATHS.map((path) => ({ what: `${path}, ${row.shape}`, ms: row.holds[path] }))),
    ...wide.map((row) => ({ what: row.body, ms: row.ms })),
  ].reduce((a, b) => (b.ms > a.ms ? b : a));
  const verdict = worst.ms <= TARGET_HOLD_MS ? "PASS" : "FAIL";
  lines.push("", `longest hold ${worst.ms.toFixed(1)} ms (${worst.what}); target at most ${TARGET_HOLD_MS} ms: ${verdict}`);
  return lines.join("\n");
}
