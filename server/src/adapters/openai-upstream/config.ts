import { DEFAULT_MODEL_ID } from "@engram/contract";
import { SettingError } from "../../domain/kernel/errors";

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
  const baseUrl = env.ENGRAM_UPSTREAM_BASE_URL?.trim();
  if (!baseUrl) return { modelId, upstream: null };
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
    throw new SettingError(`ENGRAM_UPSTREAM_BASE_URL must be an http(s) URL, got "${baseUrl}"`);
  }
  const model = env.ENGRAM_UPSTREAM_MODEL?.trim();
  if (!model) throw new SettingError("ENGRAM_UPSTREAM_MODEL must name the upstream's model when ENGRAM_UPSTREAM_BASE_URL is set");
  const timeoutMs = Number(env.ENGRAM_UPSTREAM_TIMEOUT_MS ?? DEFAULT_UPSTREAM_TIMEOUT_MS);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new SettingError(`ENGRAM_UPSTREAM_TIMEOUT_MS must be a positive whole number of milliseconds, got "${env.ENGRAM_UPSTREAM_TIMEOUT_MS}"`);
  }
  return { modelId, upstream: { baseUrl, apiKey: env.ENGRAM_UPSTREAM_API_KEY || null, model, timeoutMs } };
}
