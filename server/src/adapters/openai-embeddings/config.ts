import type { EmbeddingsConfig } from "./openai-embedder";
import { SettingError } from "../../domain/kernel/errors";

export interface SemanticConfig extends EmbeddingsConfig {
  /** ENGRAM_EMBEDDINGS_MIN_SIMILARITY: the cosine below which a neighbour is not offered. */
  minSimilarity: number;
}

function numberFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, valid: (n: number) => boolean): number {
  const value = Number(env[name] ?? fallback);
  if (!valid(value)) throw new SettingError(`${name} is out of range, got "${env[name]}"`);
  return value;
}

/** Semantic retrieval is on when ENGRAM_EMBEDDINGS_URL names an OpenAI-compatible API (README, "Configuration"). */
export function embeddingsConfigFrom(env: NodeJS.ProcessEnv): SemanticConfig | null {
  const baseUrl = env.ENGRAM_EMBEDDINGS_URL;
  if (!baseUrl) return null;
  if (!URL.canParse(baseUrl)) throw new SettingError(`ENGRAM_EMBEDDINGS_URL must be a URL, got "${baseUrl}"`);
  const dimensions = env.ENGRAM_EMBEDDINGS_DIMENSIONS ? numberFrom(env, "ENGRAM_EMBEDDINGS_DIMENSIONS", 0, (n) => Number.isInteger(n) && n > 0) : null;
  return {
    baseUrl,
    apiKey: env.ENGRAM_EMBEDDINGS_API_KEY ?? null,
    model: env.ENGRAM_EMBEDDINGS_MODEL ?? "text-embedding-3-small",
    dimensions,
    timeoutMs: numberFrom(env, "ENGRAM_EMBEDDINGS_TIMEOUT_MS", 10_000, (n) => Number.isInteger(n) && n > 0),
    minSimilarity: numberFrom(env, "ENGRAM_EMBEDDINGS_MIN_SIMILARITY", 0.3, (n) => n >= -1 && n <= 1),
  };
}
