import { request } from "node:http";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { startTestServer } from "@engram/test-support";

/** Whether a new TCP connection to the URL's port is accepted (the listener is still open). */
const accepting = (url: URL) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    socket.once("connect", () => resolve(true)).once("error", () => resolve(false));
    socket.once("connect", () => socket.destroy());
  });

describe("graceful shutdown", () => {
  it("finishes a request in flight, then refuses new connections", async () => {
    const server = await startTestServer();
    const { token } = await server.newTenant();
    const url = new URL("/v1/memory", server.url);

    // A request whose body is still arriving when shutdown begins. "Expect: 100-continue" makes the server say
    // when it has taken the request, so shutdown starts only once the request is really in flight.
    const req = request(url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "transfer-encoding": "chunked", expect: "100-continue" },
    });
    const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on("response", (res) => {
        let body = "";
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
    });
    const taken = new Promise((resolve) => req.once("continue", resolve));
    req.flushHeaders();
    await taken;
    req.write('{"text": "Written during ');

    const closed = server.stop();
    while (await accepting(url)) await new Promise((resolve) => setTimeout(resolve, 20));
    req.end('shutdown."}');

    const response = await inFlight;
    expect(response.status).toBe(201);
    expect(JSON.parse(response.body).memory.text).toBe("Written during shutdown.");
    await closed;
    await expect(fetch(server.url)).rejects.toThrow();
  });
});
