import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { createApp } from "./app";
import { continueUnlessOversized } from "./http/body";
import { answerClientError, refuseConnect, refuseExpectation, requiringHost } from "./http/client-errors";
import type { ServerConfig } from "./config";
import { openStore, type StoreOptions } from "./db/store";
import { systemClock } from "./domain/kernel/clock";
import type { Peers } from "./domain/kernel/peers";
import { rateLimitPolicy } from "./domain/rate-limits/policy";
import { reflectionScheduler } from "./domain/reflection/scheduler";
import { sweepExpiredKeys } from "./domain/writes/idempotency";
import { defaultApplicationConfig } from "./application-config";
import { createServices, type Services } from "./services";

export interface RunningServer {
  url: string;
  services: Services;
  /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>;
}

/**
 * How long a request may take to arrive: its head, and the whole of it (a body of 1 MiB at 256 kbit/s takes about
 * 33 s). Node's own are 60 s and 5 minutes, which let a client that sends a byte now and then hold a connection
 * that long; a response, a streamed chat's included, is not timed.
 */
export const REQUEST_ARRIVAL_LIMITS = { headersMs: 20_000, requestMs: 60_000, checkEveryMs: 5_000 };

export interface StartOptions {
  /** Limits on a request's arrival other than REQUEST_ARRIVAL_LIMITS (the tests', which cannot wait a minute). */
  arrivalLimits?: typeof REQUEST_ARRIVAL_LIMITS;
  validateResponses?: boolean;
  now?: () => Date;
  /** The other workers of this `engram serve`, told of changes their caches must not outlive. */
  peers?: Peers;
}

const IDEMPOTENCY_SWEEP_MS = 60 * 60 * 1000;
const SHUTDOWN_GRACE_MS = 10_000;
const EMBEDDING_SWEEP_MS = 60 * 1000;

/** One process that does everything: serves HTTP and runs the background work. */
export async function startServer(config: ServerConfig, logger: Logger, options: StartOptions = {}): Promise<RunningServer> {
  const services = await openServices(config, logger, options, "thread");
  const background = runBackground(services, config, logger, options);
  const http = await serveHttp(services, config, logger, options).catch(async (error: unknown) => {
    // Left open, the background work and the database would keep a process that cannot serve alive.
    await background.stop();
    await closeServices(services);
    throw error;
  });
  return {
    url: http.url,
    services,
    close: once(async () => {
      await background.stop();
      await http.close();
      await closeServices(services);
    }),
  };
}

/** A worker of `engram serve --workers N`: serves HTTP; the primary process runs the background work. */
export async function startHttpWorker(config: ServerConfig, logger: Logger, options: StartOptions = {}): Promise<RunningServer> {
  // The primary's store copies the log for every worker.
  const services = await openServices(config, logger, options, "peer");
  const http = await serveHttp(services, config, logger, options).catch(async (error: unknown) => {
    await closeServices(services);
    throw error;
  });
  return {
    url: http.url,
    services,
    close: once(async () => {
      await http.close();
      await closeServices(services);
    }),
  };
}

/** The primary process of `engram serve --workers N`: migrations, sweeps and reflection scheduling, no HTTP. */
export async function startBackground(config: ServerConfig, logger: Logger, options: StartOptions = {}): Promise<Omit<RunningServer, "url">> {
  const services = await openServices(config, logger, options, "thread");
  const background = runBackground(services, config, logger, options);
  return {
    services,
    close: once(async () => {
      await background.stop();
      await closeServices(services);
    }),
  };
}

async function openServices(config: ServerConfig, logger: Logger, options: StartOptions, checkpoints: StoreOptions["checkpoints"]): Promise<Services> {
  const store = await openStore(config.database, { checkpoints, onCheckpointError: (err) => logger.warn({ err }, "checkpoint failed") });
  const application = config.application ?? defaultApplicationConfig;
  return createServices(store, {
    sessions: application.sessions,
    authCacheMs: config.authCacheMs,
    embeddings: config.embeddings ? { config: config.embeddings, onError: (err, message) => logger.warn({ err }, message) } : null,
    inference: config.inference,
    rateLimits: rateLimitPolicy(config.rateLimits),
    onRateLimitError: (err) => logger.warn({ err }, "rate-limit counters unavailable; admitting requests"),
    onReflectionError: (err) => logger.warn({ err }, "reflection run failed"),
    now: options.now ?? systemClock,
    peers: options.peers,
  });
}

async function closeServices(services: Services): Promise<void> {
  await services.embeddings?.stop();
  // Runs end at their next batch and are handed over: another process (or this one's next start) finishes them.
  services.reflectionRunner.stop();
  await services.reflectionRunner.idle();
  // Retrievals counted since the last flush are written before the database closes.
  await services.usage.stop();
  await services.store.close();
}

async function serveHttp(services: Services, config: ServerConfig, logger: Logger, options: StartOptions) {
  const application = config.application ?? defaultApplicationConfig;
  const { listener, serverOptions } = createApp({ services, logger, validateResponses: options.validateResponses, application, consoleDir: config.consoleDir ?? null });
  const arrival = options.arrivalLimits ?? REQUEST_ARRIVAL_LIMITS;
  const server = createServer(
    { ...serverOptions, requireHostHeader: false, headersTimeout: arrival.headersMs, requestTimeout: arrival.requestMs, connectionsCheckingInterval: arrival.checkEveryMs },
    requiringHost(listener),
  ).listen(config.port, config.host);
  server.on("clientError", answerClientError);
  server.on("connect", refuseConnect);
  server.on("checkExpectation", refuseExpectation);
  // Checked for Host before the body is invited, as every request is.
  server.on("checkContinue", requiringHost(continueUnlessOversized(listener)));
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  const host = isEveryInterface(config.host) ? "127.0.0.1" : config.host;
  return {
    url: `http://${hostAndPort(host, port)}`,
    async close() {
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections become idle as their last response ends; close each as soon as it does.
      const reapIdle = setInterval(() => server.closeIdleConnections(), 50);
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      await drained;
      clearInterval(reapIdle);
      clearTimeout(force);
    },
  };
}

/** Sweeps of expired rows, embeddings of memories left without a vector, and reflection scheduling. */
function runBackground(services: Services, config: ServerConfig, logger: Logger, options: StartOptions) {
  const { store } = services;
  const clock = options.now ?? systemClock;
  const sweep = setInterval(() => {
    sweepExpiredKeys(store.idempotency, clock()).catch((err) => logger.warn({ err }, "idempotency sweep failed"));
    services.rateLimiter.sweep().catch((err) => logger.warn({ err }, "rate-limit sweep failed"));
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
  return {
    async stop() {
      clearInterval(sweep);
      clearInterval(embeddingSweeps);
      await reflection?.stop();
    },
  };
}

/** The first call's promise for every call: shutdown may be asked for more than once. */
function once(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => (closing ??= close());
}

/** `host:port` as URLs and addresses write it: an IPv6 address in brackets. */
export function hostAndPort(host: string, port: number | string): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * HOST as URLs write it, as the system's resolver reads it (`0` as `0.0.0.0`, `::0` as `[::]`); one no URL can
 * hold (an IPv6 address with a zone) as given, an IPv6 one in brackets.
 */
export function normalHost(host: string): string {
  const url = `http://${hostAndPort(host, 0)}`;
  if (URL.canParse(url)) return new URL(url).hostname;
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * Whether HOST is the address of every interface in any of its spellings (`0.0.0.0`, `::`, also `0` or `::0`, or
 * `::ffff:0.0.0.0`, IPv4's written as IPv6 does, on which the system accepts IPv4 on every interface).
 */
export function isEveryInterface(host: string): boolean {
  const address = normalHost(host);
  return address === "0.0.0.0" || address === "[::]" || address === "[::ffff:0:0]";
}
