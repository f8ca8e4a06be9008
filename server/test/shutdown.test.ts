import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { startTestServer } from "./support/harness";

describe("graceful shutdown", () => {
  it("finishes a request in flight, then refuses new connections", async () => {
    const server = await startTestServer();
    const { token } = await server.newTenant();
    const url = new URL("/v1/memory", server.url);

    // A request whose body is still arriving when shutdown begins.
    const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(url, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "transfer-encoding": "chunked" } }, (res) => {
        let body = "";
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.write('{"text": "Written during ');
      setTimeout(() => req.end('shutdown."}'), 300);
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = server.stop();

    const response = await inFlight;
    expect(response.status).toBe(201);
    expect(JSON.parse(response.body).memory.text).toBe("Written during shutdown.");
    await closed;
    await expect(fetch(server.url)).rejects.toThrow();
  });
});
