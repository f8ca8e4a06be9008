import { tmpdir } from "node:os";
import type { ServerConfig } from "@engram/server/config";
import type { DatabaseConfig } from "@engram/server/db/config";
import { DEFAULT_AUTH_CACHE_MS } from "@engram/server/domain/access/access-tokens";

/** The settings every test server shares: a free loopback port, no logs, the default auth cache. */
export function testServerConfig(database: DatabaseConfig, settings: Partial<Omit<ServerConfig, "database">> = {}): ServerConfig {
  return { port: 0, host: "127.0.0.1", dataDir: tmpdir(), logLevel: "silent", authCacheMs: DEFAULT_AUTH_CACHE_MS, ...settings, database };
}
