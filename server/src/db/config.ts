import { resolve } from "node:path";
import { SettingError } from "../domain/kernel/errors";

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
 * A postgres URL selects Postgres; anything else means the embedded SQLite file in the data dir.
 * `busyTimeout` is ENGRAM_DB_BUSY_TIMEOUT_MS as written, if set.
 */
export function databaseConfigFrom(databaseUrl: string | undefined, dataDir: string, busyTimeout?: string): DatabaseConfig {
  const settings = busyTimeout === undefined ? {} : { busyTimeoutMs: parseBusyTimeout(busyTimeout) };
  if (databaseUrl && /^postgres(ql)?:\/\//.test(databaseUrl)) return { provider: "postgres", url: databaseUrl, ...settings };
  return { provider: "sqlite", file: resolve(dataDir, "engram.db"), ...settings };
}

function parseBusyTimeout(value: string): number {
  const ms = Number(value);
  if (value.trim() === "" || !Number.isInteger(ms) || ms < 0) throw new SettingError(`ENGRAM_DB_BUSY_TIMEOUT_MS must be a whole number of milliseconds, got "${value}"`);
  return ms;
}
