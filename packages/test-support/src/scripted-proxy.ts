import { createServer, request as forwardRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { listenOnLoopback } from "./listen";

/** What the proxy does with one request instead of simply passing it through. */
export type Scripted =
  /** Answer this, without asking the real server, or after it (then the real answer is dropped: "lost"). */
  | { status: number; headers?: Record<string, string>; body?: unknown; afterForwarding?: boolean }
  /** Drop the connection, before or after the real server handled the request. */
  | { reset: true; afterForwarding?: boolean }
  /** Say nothing for this long, then pass the request through. */
  | { delayMs: number }
  /** Pass the request through, but hold the answer's body back for this long after its headers. */
  | { stallBodyMs: number };

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** performance.now() when the request arrived, and when the proxy finished answering it. */
  receivedAt: number;
  answeredAt?: number;
  /** The status and headers of the answer the real server gave, for requests passed through. */
  upstreamStatus?: number;
  upstreamHeaders?: IncomingHttpHeaders;
}

export interface ScriptedProxy {
  url: string;
  /** Every request that reached the proxy, in order. */
  requests: SeenRequest[];
  /** How many requests reached the real server. */
  forwarded: number;
  /** Answers for the next requests, in order; once they are used up, requests pass through. */
  script(...answers: Scripted[]): void;
  close(): Promise<void>;
}

/**
 * A real HTTP proxy in front of a real server that answers some requests itself: 429s, 503s, resets, delays.
 * It stands in for the network and a struggling server, never for Engram.
 */
export async function startScriptedProxy(target: string): Promise<ScriptedProxy> {
  const queue: Scripted[] = [];
  const proxy: ScriptedProxy = {
    url: "",
    requests: [],
    forwarded: 0,
    script: (...answers) => queue.push(...answers),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };

  const forward = (seen: SeenRequest, req: IncomingMessage): Promise<IncomingMessage> => {
    proxy.forwarded++;
    return new Promise((resolve, reject) => {
      const upstream = forwardRequest(new URL(seen.path, target), { method: seen.method, headers: { ...req.headers, host: new URL(target).host } }, resolve);
      upstream.on("error", reject);
      upstream.end(seen.body);
    });
  };

  const server = createServer((req, res) => {
    // A real server that is gone (stopped after its test) drops the client's connection, as a dead backend would.
    handle(req, res).catch(() => req.socket.destroy());
  });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const seen: SeenRequest = { method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks).toString(), receivedAt: performance.now() };
    proxy.requests.push(seen);
    const step = queue.shift();
    const answered = () => {
      seen.answeredAt = performance.now();
    };

    if (step && "delayMs" in step) {
      await new Promise((resolve) => setTimeout(resolve, step.delayMs));
      // The client gave up waiting (a timeout test): there is no one to pass an answer to.
      if (req.socket.destroyed) return;
    }
    if (step && ("status" in step || "reset" in step)) {
      if (step.afterForwarding) (await forward(seen, req)).resume();
      if ("reset" in step) {
        answered();
        req.socket.destroy();
        return;
      }
      res.writeHead(step.status, { "content-type": "application/json", ...step.headers });
      res.end(step.body === undefined ? undefined : JSON.stringify(step.body), answered);
      return;
    }

    const upstream = await forward(seen, req);
    seen.upstreamStatus = upstream.statusCode;
    seen.upstreamHeaders = upstream.headers;
    res.writeHead(upstream.statusCode ?? 502, upstream.headers);
    if (step && "stallBodyMs" in step) {
      res.flushHeaders();
      await new Promise((resolve) => setTimeout(resolve, step.stallBodyMs));
    }
    if (res.destroyed) return void upstream.resume();
    upstream.pipe(res);
    res.on("finish", answered);
  };
  proxy.url = `http://127.0.0.1:${await listenOnLoopback(server)}`;
  return proxy;
}

/** `{ error: … }` as Engram writes it, for scripted answers. */
export function errorBody(type: string, code: string, message: string, extra: Record<string, unknown> = {}) {
  return { error: { message, type, code, ...extra } };
}
