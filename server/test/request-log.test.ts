import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@engram/test-support";

interface LogLine {
  level: number;
  msg: string;
  requestId?: string;
  orgId?: string;
  tokenId?: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
}

/** A server logging at `level` into memory. */
async function loggingServer(level: string) {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  const server = await startTestServer({ logger: pino({ level }, sink) });
  return { server, lines };
}

/** The request's log lines, which are written as its answer finishes (a moment after the client has it). */
async function linesOf(lines: LogLine[], requestId: string, count = 1): Promise<LogLine[]> {
  const mine = () => lines.filter((line) => line.requestId === requestId);
  for (let tries = 0; tries < 100 && mine().length < count; tries++) await new Promise((r) => setTimeout(r, 10));
  return mine();
}

describe("request log at info", () => {
  let server: TestServer;
  let lines: LogLine[];
  beforeAll(async () => ({ server, lines } = await loggingServer("info")));
  afterAll(() => server?.stop());

  it("logs each finished request once, under its id, with the caller bound after authentication", async () => {
    const { orgId, token } = await server.newTenant();
    const res = await fetch(`${server.url}/v1/memory`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ text: "Request logs name their caller." }),
    });
    expect(res.status).toBe(201);
    const requestId = res.headers.get("x-request-id")!;
    expect(requestId).toMatch(/^req_[0-9a-f]{32}$/);
    const [line, ...more] = await linesOf(lines, requestId);
    expect(more).toEqual([]);
    expect(line).toMatchObject({ level: 30, msg: "request completed", orgId, req: { method: "POST", url: "/v1/memory" }, res: { statusCode: 201 } });
    expect(line!.tokenId).toMatch(/^tok_/);
    expect(line!.responseTime).toBeGreaterThanOrEqual(0);
  });

  it("keeps a sane caller-given request id and replaces an odd one", async () => {
    const given = await fetch(`${server.url}/v1/health`, { headers: { "x-request-id": "trace-42.a:b" } });
    expect(given.headers.get("x-request-id")).toBe("trace-42.a:b");
    expect(await linesOf(lines, "trace-42.a:b")).toMatchObject([{ msg: "request completed", res: { statusCode: 200 } }]);
    const odd = await fetch(`${server.url}/v1/health`, { headers: { "x-request-id": "two words" } });
    expect(odd.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("logs a refused request without a caller", async () => {
    const res = await fetch(`${server.url}/v1/memory/retrieve`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(401);
    const [line] = await linesOf(lines, res.headers.get("x-request-id")!);
    expect(line).toMatchObject({ level: 30, res: { statusCode: 401 } });
    expect(line!.orgId).toBeUndefined();
  });
});

describe("request log above info", () => {
  it("writes no line for a request that went well", async () => {
    const { server, lines } = await loggingServer("warn");
    try {
      const { token } = await server.newTenant();
      const res = await fetch(`${server.url}/v1/memory`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ text: "Quiet at warn." }),
      });
      expect(res.status).toBe(201);
      await new Promise((r) => setTimeout(r, 50));
      expect(lines.filter((line) => line.requestId === res.headers.get("x-request-id"))).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});
