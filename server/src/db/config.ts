import { resolve } from "node:path";
import { SettingError } from "../domain/kernel/errors";
import { MAX_TIMER_MS, wholeNumberSetting } from "../settings";

export type DatabaseConfig = (
  | { provider: "sqlite"; file: string }
  | { provider: "postgres"; url: string; poolSize?: number }
) & {
  /**
   * How long a database call waits while the database is busy (SQLite's write lock held by another process,
   * or no free Postgres connection) before the request answers 503; 5 s when absent.
   */
  busyTimeoutMs?: number;
};

export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * DATABASE_URL, a postgres URL, selects Postgres; unset, the embedded SQLite file in the data dir. Any other URL
 * is refused rather than read as unset, which would quietly start on an empty SQLite database.
 */
export function databaseConfigFrom(env: NodeJS.ProcessEnv, dataDir: string): DatabaseConfig {
  const settings = env.ENGRAM_DB_BUSY_TIMEOUT_MS === undefined ? {} : { busyTimeoutMs: wholeNumberSetting(env, "ENGRAM_DB_BUSY_TIMEOUT_MS", DEFAULT_BUSY_TIMEOUT_MS, { min: 0, max: MAX_TIMER_MS, unit: "milliseconds" }) };
  const url = env.DATABASE_URL;
  if (!url) return { provider: "sqlite", file: resolve(dataDir, "engram.db"), ...settings };
  if (!/^postgres(ql)?:\/\//i.test(url)) {
    throw new SettingError(`DATABASE_URL must be a postgres:// or postgresql:// URL (unset, the server uses SQLite in ENGRAM_DATA_DIR), got "${redactedUrl(url)}"`);
  }
  return { provider: "postgres", url, ...settings };
}

/**
 * A database URL as messages and logs may show it: without its password (in the user part, or a query parameter
 * such as `password` or `sslpassword`) or a fragment; something that is not a URL is not shown at all.
 */
export function redactedUrl(url: string): string {
  if (!URL.canParse(url)) return "(not a URL)";
  const parsed = new URL(url);
  parsed.password = "";
  parsed.hash = "";
  for (const key of [...parsed.searchParams.keys()]) if (/password/i.test(key)) parsed.searchParams.set(key, "redacted");
  return parsed.toString();
}
