import type { DatabaseConfig } from "@engram/server/db/config";
import { createLogger } from "@engram/server/logger";
import { startServer } from "@engram/server/server";
import { testServerConfig } from "./server-config";

/**
 * A server in an OS process of its own (started with child_process.fork by server-process.ts) over the
 * database given as JSON in argv[2]: tells its parent its URL, and stops when told to or when the parent goes.
 * It runs outside vitest, so it imports nothing that needs the test runner.
 */
const database = JSON.parse(process.argv[2]!) as DatabaseConfig;
const server = await startServer(testServerConfig(database), createLogger("silent"), { validateResponses: true });
const stop = () => void server.close().finally(() => process.exit(0));
process.on("message", (message) => message === "stop" && stop());
process.once("disconnect", stop);
process.send!({ url: server.url });
