import { createServer } from "node:http";
import { listenOnLoopback } from "./listen";

/** Words that mean the same to this stand-in model: each group shares one dimension. */
const CONCEPTS = [
  ["outage", "incident", "broke", "broken", "down", "failure", "failed"],
  ["pager", "paged", "on-call", "oncall", "rotation", "escalation"],
  ["database", "db", "postgres", "mysql"],
  ["deploy", "deployed", "release", "ship", "shipped", "rollout"],
  ["owner", "owns", "maintainer", "maintains", "responsible"],
];
const DIMENSIONS = 64;

/** A deterministic embedding: concept words share a dimension, any other word hashes to one of its own. */
export function conceptVector(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9-]+/g) ?? []) {
    const concept = CONCEPTS.findIndex((group) => group.includes(word));
    let hash = 0;
    for (const char of word) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
    vector[concept >= 0 ? concept : CONCEPTS.length + (hash % (DIMENSIONS - CONCEPTS.length))]! += 1;
  }
  if (!vector.some((x) => x !== 0)) vector[DIMENSIONS - 1] = 1;
  return vector;
}

/**
 * A real OpenAI-compatible embeddings server for tests: answers POST /v1/embeddings with concept vectors,
 * records what it was asked, and can be made to fail or to hold its answers until released.
 */
export async function startEmbeddingsServer() {
  const requests: Array<{ model: string; input: string[]; dimensions?: number; authorization: string | undefined }> = [];
  let failing = false;
  let gate: { promise: Promise<void>; open: () => void } | null = null;

  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    if (req.method !== "POST" || req.url !== "/v1/embeddings") {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(raw) as { model: string; input: string[]; dimensions?: number };
    requests.push({ model: body.model, input: body.input, dimensions: body.dimensions, authorization: req.headers.authorization });
    if (gate) await gate.promise;
    if (failing) {
      res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "overloaded", type: "server_error" } }));
      return;
    }
    // Answered in reverse order: clients must put them back in order by `index`.
    const data = body.input.map((text, index) => ({ object: "embedding", index, embedding: conceptVector(text) })).reverse();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", model: body.model, data }));
  });
  const port = await listenOnLoopback(server);

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    setFailing(value: boolean) {
      failing = value;
    },
    /** Holds every answer until the returned function is called. */
    hold(): () => void {
      let open!: () => void;
      const promise = new Promise<void>((resolve) => (open = resolve));
      gate = { promise, open };
      return () => {
        gate = null;
        open();
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
