import { connect, createServer, type Server, type Socket } from "node:net";
import { listenOnLoopback } from "./listen";

export interface TcpProxy {
  port: number;
  /** Drops every connection and refuses new ones, as a stopped server does. */
  down(): Promise<void>;
  /** Accepts connections again, on the same port. */
  up(): Promise<void>;
}

/** A TCP relay to `target` on a loopback port, that a test can take down and bring back. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const up = async () => {
    const listening = createServer((client) => {
      const upstream = connect(target.port, target.host);
      track(client);
      track(upstream);
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    port = await listenOnLoopback(listening, port);
    server = listening;
  };
  const down = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
      server = null;
      for (const socket of sockets) socket.destroy();
    });

  await up();
  return {
    get port() {
      return port;
    },
    down,
    up,
  };
}
