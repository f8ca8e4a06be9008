import type { EmbeddingsConfig } from "./openai-embedder";
import { decimalSetting, httpUrlSetting, MAX_TIMER_MS, wholeNumberSetting } from "../../settings";

export interface SemanticConfig extends EmbeddingsConfig {
  /** ENGRAM_EMBEDDINGS_MIN_SIMILARITY: the cosine below which a neighbour is not offered. */
  minSimilarity: number;
}

/** More dimensions than any embeddings model offers (the largest have a few thousand). */
const MAX_DIMENSIONS = 16_384;

/** Semantic retrieval is on when ENGRAM_EMBEDDINGS_URL names an OpenAI-compatible API (README, "Configuration"). */
export function embeddingsConfigFrom(env: NodeJS.ProcessEnv): SemanticConfig | null {
  const baseUrl = httpUrlSetting(env, "ENGRAM_EMBEDDINGS_URL");
  // Read even without a URL: a mistake in them is told now, not when semantic retrieval is turned on.
  const dimensions = env.ENGRAM_EMBEDDINGS_DIMENSIONS ? wholeNumberSetting(env, "ENGRAM_EMBEDDINGS_DIMENSIONS", 0, { min: 1, max: MAX_DIMENSIONS }) : null;
  const timeoutMs = wholeNumberSetting(env, "ENGRAM_EMBEDDINGS_TIMEOUT_MS", 10_000, { min: 1, max: MAX_TIMER_MS, unit: "milliseconds" });
  const minSimilarity = decimalSetting(env, "ENGRAM_EMBEDDINGS_MIN_SIMILARITY", 0.3, { min: -1, max: 1 });
  if (!baseUrl) return null;
  return {
    baseUrl,
    apiKey: env.ENGRAM_EMBEDDINGS_API_KEY ?? null,
    model: env.ENGRAM_EMBEDDINGS_MODEL?.trim() || "text-embedding-3-small",
    dimensions,
    timeoutMs,
    minSimilarity,
  };
}
