import { resolve } from "node:path";

export type DatabaseConfig =
  | { provider: "sqlite"; file: string }
  | { provider: "postgres"; url: string; poolSize?: number };

/** A postgres URL selects Postgres; anything else means the embedded SQLite file in the data dir. */
export function databaseConfigFrom(databaseUrl: string | undefined, dataDir: string): DatabaseConfig {
  if (databaseUrl && /^postgres(ql)?:\/\//.test(databaseUrl)) return { provider: "postgres", url: databaseUrl };
  return { provider: "sqlite", file: resolve(dataDir, "engram.db") };
}
