import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { createApp } from "./app";
import type { ServerConfig } from "./config";
import { openStore } from "./db/store";
import { createServices, type Services } from "./services";

export interface RunningServer {
  url: string;
  services: Services;
  /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>;
}

const IDEMPOTENCY_SWEEP_MS = 60 * 60 * 1000;
const SHUTDOWN_GRACE_MS = 10_000;

export async function startServer(
  config: ServerConfig,
  logger: Logger,
  options: { validateResponses?: boolean } = {},
): Promise<RunningServer> {
  const store = await openStore(config.database);
  const services = createServices(store, { authCacheMs: config.authCacheMs });
  const app = createApp({ services, logger, validateResponses: options.validateResponses });
  const server = app.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;

  const sweep = setInterval(() => {
    store.transaction((tx) => tx.idempotency.deleteExpired(new Date())).catch((err) => logger.warn({ err }, "idempotency sweep failed"));
  }, IDEMPOTENCY_SWEEP_MS);
  sweep.unref();

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    services,
    close() {
      closing ??= (async () => {
        clearInterval(sweep);
        const drained = new Promise<void>((resolve) => server.close(() => resolve()));
        // Keep-alive connections become idle as their last response ends; close each as soon as it does.
        const reapIdle = setInterval(() => server.closeIdleConnections(), 50);
        server.closeIdleConnections();
        const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        await drained;
        clearInterval(reapIdle);
        clearTimeout(force);
        await store.close();
      })();
      return closing;
    },
  };
}
