/**
 * A stand-in OpenAI-compatible embeddings endpoint of realistic width (1,536 dimensions, as
 * text-embedding-3-small answers), with deterministic vectors hashed from each text, for measuring what
 * holding 100,000 vectors costs the server.
 */
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export const STUB_DIMENSIONS = 1536;

function vectorOf(text: string): number[] {
  const seed = createHash("sha256").update(text).digest();
  const vector = Array.from({ length: STUB_DIMENSIONS }, (_, i) => seed[i % seed.length]! - 128 + (i % 7));
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

export async function startEmbeddingsStub(): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const { model, input } = JSON.parse(raw) as { model: string; input: string[] };
    const data = input.map((text, index) => ({ object: "embedding", index, embedding: vectorOf(text) }));
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", model, data }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
