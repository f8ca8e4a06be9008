import cluster, { type Worker } from "node:cluster";
import type { Logger } from "pino";
import type { ServerConfig } from "../config";
import { restartPause } from "../domain/kernel/restart-pause";
import { startBackground } from "../server";
import type { Services } from "../services";
import { type ClusterMessage, isClusterMessage } from "./messages";

/** How long a notice waits for the workers' answers: one that has not answered by then is stuck or gone. */
const NOTICE_TIMEOUT_MS = 2_000;
/** How long the workers have to finish their requests once asked to stop (they allow 10 s themselves). */
const STOP_TIMEOUT_MS = 15_000;

export interface RunningCluster {
  url: string;
  services: Services;
  close(): Promise<void>;
}

/**
 * The primary process of `engram serve --workers N`: migrates and runs the background work (sweeps,
 * embedding sweeps, reflection scheduling) once, forks the HTTP workers, which share the listening port,
 * relays notices between them, replaces a worker that dies (until a replacement starts), and stops them all gracefully.
 */
export async function runPrimary(config: ServerConfig, workers: number, logger: Logger): Promise<RunningCluster> {
  const background = await startBackground(config, logger);
  let stopping = false;
  const listening = new Map<number, Worker>();
  // Each broadcast becomes one notice to every other worker; the origin hears back when all have acted on it.
  const notices = new Map<number, { origin: Worker; originId: number; waitingFor: Set<number>; timer: NodeJS.Timeout }>();
  let nextNotice = 0;

  const finishNotice = (id: number) => {
    const notice = notices.get(id);
    if (!notice) return;
    clearTimeout(notice.timer);
    notices.delete(id);
    if (notice.origin.isConnected()) notice.origin.send({ engram: "broadcast-done", id: notice.originId } satisfies ClusterMessage);
  };
  const answered = (id: number, workerId: number) => {
    const notice = notices.get(id);
    notice?.waitingFor.delete(workerId);
    if (notice && notice.waitingFor.size === 0) finishNotice(id);
  };

  const onMessage = (worker: Worker, message: unknown) => {
    if (!isClusterMessage(message)) return;
    if (message.engram === "broadcast") {
      const id = nextNotice++;
      const others = [...listening.values()].filter((other) => other !== worker && other.isConnected());
      notices.set(id, { origin: worker, originId: message.id, waitingFor: new Set(others.map((other) => other.id)), timer: setTimeout(() => finishNotice(id), NOTICE_TIMEOUT_MS) });
      for (const other of others) other.send({ engram: "notice", id, kind: message.kind } satisfies ClusterMessage);
      if (others.length === 0) finishNotice(id);
    } else if (message.engram === "notice-done") {
      answered(message.id, worker.id);
    }
  };

  const fork = () =>
    new Promise<string>((resolve, reject) => {
      const worker = cluster.fork();
      let failure: Error | undefined;
      worker.on("message", (message: unknown) => {
        if (isClusterMessage(message) && message.engram === "listening") {
          listening.set(worker.id, worker);
          logger.info({ worker: worker.id, pid: worker.process.pid }, "worker listening");
          resolve(message.url);
        } else if (isClusterMessage(message) && message.engram === "failed") {
          failure = Object.assign(new Error(message.message), { code: message.code });
        }
        onMessage(worker, message);
      });
      worker.once("exit", (code, signal) => {
        const wasListening = listening.delete(worker.id);
        // The notices it was to answer are answered for it.
        for (const id of [...notices.keys()]) answered(id, worker.id);
        if (!wasListening) return reject(failure ?? new Error(`a worker exited with ${signal ?? code} before listening`));
        if (stopping) return;
        logger.error({ worker: worker.id, code, signal }, "a worker exited; starting another");
        replace(0);
      });
    });

  /** Forks a replacement after a pause that doubles with each replacement that failed to start, until one starts. */
  const replace = (failures: number) => {
    const retry = () => {
      if (stopping) return;
      fork().catch((err) => {
        // Ended by the server's own stop while it started: nothing to retry.
        if (stopping) return;
        logger.error({ err, retryInMs: restartPause(failures + 1) }, "a replacement worker failed to start; trying again");
        replace(failures + 1);
      });
    };
    setTimeout(retry, restartPause(failures)).unref();
  };

  const stopWorkers = async () => {
    const all = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
    const exited = all.map((worker) => new Promise<void>((resolve) => (worker.isDead() ? resolve() : worker.once("exit", () => resolve()))));
    // A worker still starting has no requests to finish; one serving finishes those it has.
    for (const worker of all) {
      if (listening.has(worker.id) && worker.isConnected()) worker.send({ engram: "stop" } satisfies ClusterMessage);
      else worker.kill("SIGTERM");
    }
    const force = setTimeout(() => all.forEach((worker) => worker.kill("SIGKILL")), STOP_TIMEOUT_MS);
    await Promise.all(exited);
    clearTimeout(force);
  };

  let url: string;
  try {
    url = (await Promise.all(Array.from({ length: workers }, fork)))[0]!;
  } catch (error) {
    // One worker could not start (the others cannot either, or the server would be short of them): none outlives this.
    stopping = true;
    await stopWorkers();
    await background.close();
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    url,
    services: background.services,
    close() {
      stopping = true;
      closing ??= stopWorkers().then(() => background.close());
      return closing;
    },
  };
}
