import { DEFAULT_MODEL_ID } from "@engram/contract";
import { SettingError } from "../../domain/kernel/errors";
import { httpUrlSetting, MAX_TIMER_MS, wholeNumberSetting } from "../../settings";

export interface UpstreamConfig {
  /** The OpenAI-compatible API's base URL, e.g. https://api.openai.com/v1 or http://localhost:11434/v1. */
  baseUrl: string;
  apiKey: string | null;
  /** The upstream's own model name, sent in place of the advertised id. */
  model: string;
  /** How long to wait for the upstream's answer to begin, and then between streamed pieces. */
  timeoutMs: number;
}

export interface InferenceConfig {
  /** The one model id the gateway advertises and accepts (ENGRAM_MODEL_ID). */
  modelId: string;
  /** The OpenAI-compatible upstream; null for the embedded responder. */
  upstream: UpstreamConfig | null;
}

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 60_000;
export const defaultInferenceConfig: InferenceConfig = { modelId: DEFAULT_MODEL_ID, upstream: null };

/**
 * The gateway's settings (README, "Configuration"): ENGRAM_MODEL_ID, and ENGRAM_UPSTREAM_BASE_URL with
 * ENGRAM_UPSTREAM_MODEL, ENGRAM_UPSTREAM_API_KEY and ENGRAM_UPSTREAM_TIMEOUT_MS for an OpenAI-compatible
 * upstream; without a base URL the embedded responder answers.
 */
export function inferenceConfigFrom(env: NodeJS.ProcessEnv): InferenceConfig {
  const modelId = env.ENGRAM_MODEL_ID?.trim() || DEFAULT_MODEL_ID;
  const baseUrl = httpUrlSetting(env, "ENGRAM_UPSTREAM_BASE_URL");
  // Read even without a base URL: a mistake in it is told now, not when the upstream is turned on.
  const timeoutMs = wholeNumberSetting(env, "ENGRAM_UPSTREAM_TIMEOUT_MS", DEFAULT_UPSTREAM_TIMEOUT_MS, { min: 1, max: MAX_TIMER_MS, unit: "milliseconds" });
  if (!baseUrl) return { modelId, upstream: null };
  const model = env.ENGRAM_UPSTREAM_MODEL?.trim();
  if (!model) throw new SettingError("ENGRAM_UPSTREAM_MODEL must name the upstream's model when ENGRAM_UPSTREAM_BASE_URL is set");
  return { modelId, upstream: { baseUrl, apiKey: env.ENGRAM_UPSTREAM_API_KEY || null, model, timeoutMs } };
}
