import type { Logger } from "pino";
import type { ServerConfig } from "../config";
import type { Peers } from "../domain/kernel/peers";
import { type RunningServer, startHttpWorker } from "../server";
import { type ClusterMessage, isClusterMessage, type PeerNotice } from "./messages";

const send = (message: ClusterMessage) => process.send!(message);

/**
 * One worker of `engram serve --workers N`: serves HTTP on the port the workers share, passes notices to and
 * from the other workers through the primary, and stops gracefully when the primary asks, on SIGINT or SIGTERM
 * (Ctrl+C reaches every process of the group), or when the primary is gone.
 */
export async function runWorker(config: ServerConfig, logger: Logger): Promise<void> {
  const waiting = new Map<number, () => void>();
  let nextId = 0;
  const broadcast = (kind: PeerNotice) =>
    new Promise<void>((resolve) => {
      // The primary is gone (the whole server is stopping): there is nobody left to tell.
      if (!process.connected) return resolve();
      const id = nextId++;
      waiting.set(id, resolve);
      send({ engram: "broadcast", id, kind });
    });
  const peers: Peers = { forgetVerifiedTokens: () => broadcast("forget-verified-tokens") };

  let server: RunningServer;
  try {
    server = await startHttpWorker(config, logger, { peers });
  } catch (error) {
    // The primary reports why (it is the process the user started); the channel to it would keep this one alive.
    const { message, code } = error instanceof Error ? (error as NodeJS.ErrnoException) : { message: String(error), code: undefined };
    process.send!({ engram: "failed", message, code } satisfies ClusterMessage, () => process.exit(1));
    return;
  }
  const stop = () =>
    void server.close().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  process.on("message", (message) => {
    if (!isClusterMessage(message)) return;
    if (message.engram === "broadcast-done") {
      waiting.get(message.id)?.();
      waiting.delete(message.id);
    } else if (message.engram === "notice") {
      if (message.kind === "forget-verified-tokens") server.services.tokens.forgetVerifiedHere();
      send({ engram: "notice-done", id: message.id });
    } else if (message.engram === "stop") stop();
  });
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  process.once("disconnect", stop);
  send({ engram: "listening", url: server.url });
}
