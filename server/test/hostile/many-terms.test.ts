import { DEFAULT_MODEL_ID, memoryLimits } from "@engram/contract";
import { describe, expect, it } from "vitest";
import { rawRequest } from "@engram/test-support";
import { useSeededServer } from "./fixture";

/**
 * Texts of as many distinct terms as their fields hold. Retrieval counts the document frequency of the query's
 * terms and of its best matches' terms; counted one column a term, thousands of them passed the database's
 * bound on a result's columns and answered 500.
 */

const seeded = useSeededServer();

/** Words of `letters` random lowercase letters, from a seeded generator, up to `length` characters. */
function randomWords(seed: number, length: number, letters: number): string {
  let state = seed;
  const letter = () => String.fromCharCode(97 + ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) % 26));
  const words: string[] = [];
  for (let size = 0; size < length; size += letters + 1) words.push(Array.from({ length: letters }, letter).join(""));
  return words.join(" ").slice(0, length);
}

const post = (path: string, body: object) => rawRequest(seeded.server.url, path, { token: seeded.token, body: JSON.stringify(body) });

describe("texts of thousands of distinct terms", () => {
  it("are recalled, with a context block and in a chat, though each holds more terms than a result has columns", async () => {
    for (const seed of [3, 5]) {
      const created = await post("/v1/memory", { text: `ledger ${randomWords(seed, memoryLimits.textMaxLength - 7, 5)}` });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    const recalled = await post("/v1/memory/recall", { query: "ledger" });
    expect(recalled.status, JSON.stringify(recalled.body)).toBe(200);
    expect(recalled.body.memories).toHaveLength(2);
    const withContext = await post("/v1/memory/recall", { query: "ledger", includeContext: true });
    expect(withContext.status, JSON.stringify(withContext.body)).toBe(200);
    const chat = await post("/v1/chat/completions", { model: DEFAULT_MODEL_ID, messages: [{ role: "user", content: "ledger?" }] });
    expect(chat.status, JSON.stringify(chat.body)).toBe(200);
    expect(chat.headers.get("x-engram-memories-used")).toMatch(/^\d+$/);
  });
});
