import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { createApp } from "./app";
import { continueUnlessOversized } from "./http/body";
import { answerClientError } from "./http/client-errors";
import type { ServerConfig } from "./config";
import { openStore } from "./db/store";
import { systemClock } from "./domain/kernel/clock";
import { rateLimitPolicy } from "./domain/rate-limits/policy";
import { reflectionScheduler } from "./domain/reflection/scheduler";
import { defaultApplicationConfig } from "./application-config";
import { createServices, type Services } from "./services";

export interface RunningServer {
  url: string;
  services: Services;
  /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>;
}

const IDEMPOTENCY_SWEEP_MS = 60 * 60 * 1000;
const SHUTDOWN_GRACE_MS = 10_000;
const EMBEDDING_SWEEP_MS = 60 * 1000;

export async function startServer(
  config: ServerConfig,
  logger: Logger,
  options: { validateResponses?: boolean; now?: () => Date } = {},
): Promise<RunningServer> {
  const store = await openStore(config.database);
  const clock = options.now ?? systemClock;
  const application = config.application ?? defaultApplicationConfig;
  const services = createServices(store, {
    sessions: application.sessions,
    authCacheMs: config.authCacheMs,
    embeddings: config.embeddings ? { config: config.embeddings, onError: (err, message) => logger.warn({ err }, message) } : null,
    inference: config.inference,
    rateLimits: rateLimitPolicy(config.rateLimits),
    onRateLimitError: (err) => logger.warn({ err }, "rate-limit counters unavailable; admitting requests"),
    onReflectionError: (err) => logger.warn({ err }, "reflection run failed"),
    now: clock,
  });
  const app = createApp({ services, logger, validateResponses: options.validateResponses, application, consoleDir: config.consoleDir ?? null });
  const server = app.listen(config.port, config.host);
  server.on("clientError", answerClientError);
  server.on("checkContinue", continueUnlessOversized(app));
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;

  const sweep = setInterval(() => {
    store.transaction((tx) => tx.idempotency.deleteExpired(clock())).catch((err) => logger.warn({ err }, "idempotency sweep failed"));
    // Rate-limit counters matter for their own minute only.
    store.rateLimits.deleteBefore(Math.floor(clock().getTime() / 60_000) - 1).catch((err) => logger.warn({ err }, "rate-limit sweep failed"));
    services.sessions.sweep().catch((err) => logger.warn({ err }, "session sweep failed"));
  }, IDEMPOTENCY_SWEEP_MS);
  sweep.unref();
  // Memories left without a vector (endpoint down, a process stopped first, promoted candidates) are embedded by sweeps.
  const embedSweep = () => services.embeddings?.sweep().catch((err) => logger.warn({ err }, "embedding sweep failed"));
  void embedSweep();
  const embeddingSweeps = setInterval(embedSweep, EMBEDDING_SWEEP_MS);
  embeddingSweeps.unref();
  const reflection = config.reflection
    ? reflectionScheduler(store, services.reflectionRunner, {
        clock,
        tickMs: config.reflection.tickMs,
        startDue: config.reflection.startDue,
        onError: (err) => logger.warn({ err }, "reflection scheduling failed"),
      })
    : null;
  reflection?.start();

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    services,
    close() {
      closing ??= (async () => {
        clearInterval(sweep);
        clearInterval(embeddingSweeps);
        await reflection?.stop();
        await services.embeddings?.stop();
        const drained = new Promise<void>((resolve) => server.close(() => resolve()));
        // Keep-alive connections become idle as their last response ends; close each as soon as it does.
        const reapIdle = setInterval(() => server.closeIdleConnections(), 50);
        server.closeIdleConnections();
        const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        await drained;
        clearInterval(reapIdle);
        clearTimeout(force);
        // Runs end at their next batch and are handed over: another process (or this one's next start) finishes them.
        services.reflectionRunner.stop();
        await services.reflectionRunner.idle();
        // Retrievals counted since the last flush are written before the database closes.
        await services.usage.stop();
        await store.close();
      })();
      return closing;
    },
  };
}
