/** What the primary and the workers of one `engram serve` tell each other over the cluster's IPC channel. */
export type ClusterMessage =
  /** A worker is serving at `url`. */
  | { engram: "listening"; url: string }
  /** A worker could not start (`code`: Node's error code, such as EADDRINUSE); it exits once this is sent. */
  | { engram: "failed"; message: string; code?: string }
  /** A worker asks every other worker to act on `kind`; answered with `broadcast-done` under the same id. */
  | { engram: "broadcast"; id: number; kind: PeerNotice }
  | { engram: "broadcast-done"; id: number }
  /** The primary passes a worker's notice on; the worker answers `notice-done` once it has acted on it. */
  | { engram: "notice"; id: number; kind: PeerNotice }
  | { engram: "notice-done"; id: number }
  /** The primary asks a worker to finish its requests and exit. */
  | { engram: "stop" };

export type PeerNotice = "forget-verified-tokens";

export function isClusterMessage(message: unknown): message is ClusterMessage {
  return typeof message === "object" && message !== null && typeof (message as { engram?: unknown }).engram === "string";
}
