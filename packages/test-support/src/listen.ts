import type { AddressInfo, Server } from "node:net";

/** Listens on 127.0.0.1, on `port` or else a free one, and resolves with the port (rejects if it cannot listen). */
export function listenOnLoopback(server: Server, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
