import { tmpdir } from "node:os";
import type { DatabaseConfig } from "../../src/db/config";
import { DEFAULT_AUTH_CACHE_MS } from "../../src/domain/access/access-tokens";
import { createLogger } from "../../src/logger";
import { startServer } from "../../src/server";

/**
 * A server in an OS process of its own (started with child_process.fork by server-process.ts) over the
 * database given as JSON in argv[2]: tells its parent its URL, and stops when told to or when the parent goes.
 */
const database = JSON.parse(process.argv[2]!) as DatabaseConfig;
const server = await startServer(
  { port: 0, host: "127.0.0.1", dataDir: tmpdir(), logLevel: "silent", authCacheMs: DEFAULT_AUTH_CACHE_MS, database },
  createLogger("silent"),
  { validateResponses: true },
);
const stop = () => void server.close().finally(() => process.exit(0));
process.on("message", (message) => message === "stop" && stop());
process.once("disconnect", stop);
process.send!({ url: server.url });
