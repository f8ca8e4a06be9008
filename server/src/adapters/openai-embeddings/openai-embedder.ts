import { unitVector } from "@engram/retrieval";
import { z } from "zod";
import type { Embedder } from "../../domain/retrieval/ports";

export interface EmbeddingsConfig {
  /** Base URL of an OpenAI-compatible API, e.g. https://api.openai.com/v1 or a local server's /v1. */
  baseUrl: string;
  apiKey: string | null;
  model: string;
  /** Asks models that can shorten their vectors (text-embedding-3-*) for this many dimensions. */
  dimensions: number | null;
  timeoutMs: number;
}

const ZEmbeddingsResponse = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative(), embedding: z.array(z.number()).min(1) })),
});

export class EmbeddingsError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = "EmbeddingsError";
  }
}

/** An embeddings client for any OpenAI-compatible `/embeddings` endpoint (OpenAI, vLLM, Ollama, llama.cpp, …). */
export function openAiEmbedder(config: EmbeddingsConfig): Embedder {
  const url = `${config.baseUrl.replace(/\/+$/, "")}/embeddings`;
  return {
    model: config.model,
    async embed(texts) {
      if (texts.length === 0) return [];
      let response: Response;
      try {
        response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
          body: JSON.stringify({ model: config.model, input: texts, encoding_format: "float", ...(config.dimensions ? { dimensions: config.dimensions } : {}) }),
          signal: AbortSignal.timeout(config.timeoutMs),
        });
      } catch (error) {
        throw new EmbeddingsError(`embeddings endpoint unreachable: ${(error as Error).message}`, null);
      }
      if (!response.ok) throw new EmbeddingsError(`embeddings endpoint answered ${response.status}`, response.status);
      const parsed = ZEmbeddingsResponse.safeParse(await response.json().catch(() => null));
      if (!parsed.success || parsed.data.data.length !== texts.length) throw new EmbeddingsError("embeddings endpoint answered an unexpected body", response.status);
      // The API may return items in any order; `index` ties each to its input.
      return [...parsed.data.data].sort((a, b) => a.index - b.index).map((item) => unitVector(item.embedding));
    },
  };
}
