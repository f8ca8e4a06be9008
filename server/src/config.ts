import { databaseConfigFrom, type DatabaseConfig } from "./db/config";

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  database: DatabaseConfig;
  logLevel: string;
}

/** Reads the documented environment variables (README, "Configuration"). */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const port = Number(env.PORT ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got "${env.PORT}"`);
  const dataDir = env.ENGRAM_DATA_DIR ?? "./data";
  return {
    port,
    host: env.HOST ?? "0.0.0.0",
    dataDir,
    database: databaseConfigFrom(env.DATABASE_URL, dataDir),
    logLevel: env.LOG_LEVEL ?? "info",
  };
}
