import { createServer, IncomingMessage, type Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expressObjects } from "../src/http/express-objects";

/**
 * The server makes each request and response with the app's own prototypes, so Express's swap at the start
 * of every request finds nothing to change (docs/performance.md, item 30), and the objects still work as
 * Node's and as Express's.
 */
describe("expressObjects", () => {
  const app = express();
  const seen: Array<{ request: boolean; response: boolean }> = [];
  app.post("/echo", express.json(), (req, res) => {
    res.status(201).set("x-seen", req.get("x-sent")).json({ body: req.body, nodeRequest: req instanceof IncomingMessage, nodeResponse: res instanceof ServerResponse });
  });
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer(expressObjects(app), (req, res) => {
      seen.push({ request: Object.getPrototypeOf(req) === app.request, response: Object.getPrototypeOf(res) === app.response });
      app(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("gives requests and responses the app's prototypes before Express sees them", async () => {
    seen.length = 0;
    for (const n of [1, 2, 3]) {
      const res = await fetch(`${url}/echo`, { method: "POST", headers: { "content-type": "application/json", "x-sent": `n${n}` }, body: JSON.stringify({ n }) });
      expect(res.status).toBe(201);
      expect(res.headers.get("x-seen")).toBe(`n${n}`);
      expect(await res.json()).toEqual({ body: { n }, nodeRequest: true, nodeResponse: true });
    }
    expect(seen).toEqual([1, 2, 3].map(() => ({ request: true, response: true })));
  });

  it("answers Express's own errors as before", async () => {
    const res = await fetch(`${url}/nowhere`, { method: "POST" });
    expect(res.status).toBe(404);
    const malformed = await fetch(`${url}/echo`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" });
    expect(malformed.status).toBe(400);
  });
});
