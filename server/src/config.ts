import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { databaseConfigFrom, type DatabaseConfig } from "./db/config";
import { parseRateLimitSetting, type RateLimitOverride } from "./domain/rate-limits/policy";
import { embeddingsConfigFrom, type SemanticConfig } from "./adapters/openai-embeddings/config";
import { type InferenceConfig, inferenceConfigFrom } from "./adapters/openai-upstream/config";
import { DEFAULT_AUTH_CACHE_MS } from "./domain/access/access-tokens";
import { type ApplicationConfig, applicationConfigFrom } from "./application-config";
import { builtConsoleDir } from "./console-location";
import { SettingError } from "./domain/kernel/errors";
import { MAX_TIMER_MS, wholeNumberSetting } from "./settings";

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  database: DatabaseConfig;
  logLevel: string;
  /** ENGRAM_AUTH_CACHE_MS: how long a verified token is trusted without a database read. */
  authCacheMs: number;
  /** ENGRAM_EMBEDDINGS_*: semantic retrieval through an OpenAI-compatible embeddings endpoint, if set. */
  embeddings?: SemanticConfig | null;
  /** ENGRAM_MODEL_ID and ENGRAM_UPSTREAM_*: the inference gateway (the embedded responder when absent). */
  inference?: InferenceConfig;
  /** ENGRAM_RATE_LIMITS: overrides of the default rate limits, or `off` (defaults when absent). */
  rateLimits?: RateLimitOverride[] | "off";
  /** ENGRAM_SESSION_*, ENGRAM_COOKIE_SECURE, ENGRAM_APP_ORIGINS, ENGRAM_ADMIN_*: the session-backed `/api` routes. */
  application?: ApplicationConfig;
  /**
   * ENGRAM_REFLECTION and ENGRAM_REFLECTION_TICK_MS: the reflection scheduler. Absent: none runs in this process
   * (test servers); `startDue: false` only takes over runs whose process died.
   */
  reflection?: ReflectionSchedulerConfig;
  /** ENGRAM_WORKERS or `engram serve --workers N`: HTTP worker processes (default: one per core; 1 is a single process). */
  workers?: number;
  /** ENGRAM_CONSOLE_DIR: the built console served at `/` (the console package's build by default); null: none. */
  consoleDir?: string | null;
  /** ENGRAM_CONSOLE_DIR=off: no console, on purpose (none is served, and none is asked for). */
  consoleOff?: boolean;
}

export interface ReflectionSchedulerConfig {
  tickMs: number;
  startDue: boolean;
}

export const DEFAULT_REFLECTION_TICK_MS = 60_000;

function reflectionConfigFrom(env: NodeJS.ProcessEnv): ReflectionSchedulerConfig {
  const mode = env.ENGRAM_REFLECTION ?? "on";
  if (mode !== "on" && mode !== "off") throw new SettingError(`ENGRAM_REFLECTION must be on or off, got "${mode}"`);
  const tickMs = wholeNumberSetting(env, "ENGRAM_REFLECTION_TICK_MS", DEFAULT_REFLECTION_TICK_MS, { min: 1, max: MAX_TIMER_MS, unit: "milliseconds" });
  return { tickMs, startDue: mode === "on" };
}

/** HOST, where an IPv6 address may be written in brackets as URLs write it (`[::1]`): the address inside. */
function hostFrom(setting: string | undefined): string {
  if (setting === undefined) return "0.0.0.0";
  return /^\[[^\]]*:[^\]]*\]$/.test(setting) ? setting.slice(1, -1) : setting;
}

/** Reads the documented environment variables (README, "Configuration"). */
export function configFromEnv(environment: NodeJS.ProcessEnv = process.env): ServerConfig {
  // A variable set to nothing (`PORT=` in an environment file) means its default, as if unset.
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== ""));
  const dataDir = env.ENGRAM_DATA_DIR ?? "./data";
  return {
    port: wholeNumberSetting(env, "PORT", 8787, { min: 0, max: 65_535 }),
    host: hostFrom(env.HOST),
    dataDir,
    database: databaseConfigFrom(env, dataDir),
    logLevel: logLevelFrom(env.LOG_LEVEL),
    authCacheMs: wholeNumberSetting(env, "ENGRAM_AUTH_CACHE_MS", DEFAULT_AUTH_CACHE_MS, { min: 0, max: MAX_TIMER_MS, unit: "milliseconds" }),
    embeddings: embeddingsConfigFrom(env),
    inference: inferenceConfigFrom(env),
    rateLimits: parseRateLimitSetting(env.ENGRAM_RATE_LIMITS),
    application: applicationConfigFrom(env),
    reflection: reflectionConfigFrom(env),
    ...consoleFrom(env),
    workers: workersFrom(env.ENGRAM_WORKERS, "ENGRAM_WORKERS"),
  };
}

/** pino's levels, most verbose first; `silent` writes nothing. */
const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

function logLevelFrom(value: string | undefined): string {
  if (value === undefined) return "info";
  if (!LOG_LEVELS.includes(value)) throw new SettingError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${value}"`);
  return value;
}

/** The most workers one `engram serve` forks: more than the cores only adds switching. */
export const MAX_WORKERS = 64;

/** A worker count as written (ENGRAM_WORKERS, `--workers`); one per core when absent. */
export function workersFrom(value: string | undefined, name: string): number {
  return wholeNumberSetting({ [name]: value }, name, availableParallelism(), { min: 1, max: MAX_WORKERS });
}

/** `off` serves no console; a directory must hold a build (index.html); unset, the console package's build if there is one. */
function consoleFrom(env: NodeJS.ProcessEnv): Pick<ServerConfig, "consoleDir" | "consoleOff"> {
  const setting = env.ENGRAM_CONSOLE_DIR;
  if (setting === "off") return { consoleDir: null, consoleOff: true };
  if (setting !== undefined) {
    if (!existsSync(join(setting, "index.html"))) throw new SettingError(`ENGRAM_CONSOLE_DIR must be a built console (a folder with index.html), got "${setting}"`);
    return { consoleDir: resolve(setting), consoleOff: false };
  }
  return { consoleDir: builtConsoleDir(), consoleOff: false };
}
