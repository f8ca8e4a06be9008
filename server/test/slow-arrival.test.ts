import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@engram/test-support";
import { writeUntilClosed } from "./hostile/raw-http";

/**
 * A client that sends its request slowly, or stops halfway, is answered 408 request_timeout in the documented
 * shape once the head or the whole request is overdue, and its connection closed; others are served meanwhile.
 * The limits are the server's own shortened (a test cannot wait a minute); the mechanism is the same.
 */
let server: TestServer;
let token: string;
beforeAll(async () => {
  server = await startTestServer({ arrivalLimits: { headersMs: 400, requestMs: 800, checkEveryMs: 50 } });
  token = await server.newToken(await server.newOrg());
});
afterAll(() => server?.stop());

/** Writes `sent` and then nothing, and resolves with everything the server answered once it closed the connection. */
const stall = (sent: string) => writeUntilClosed(server.url, sent);

function expectTimedOut(answer: string): void {
  expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
  const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
  expect(body.error).toMatchObject({ code: "request_timeout", type: "invalid_request_error" });
}

describe("a request that does not arrive in time", () => {
  it("answers 408 request_timeout when its headers stop halfway", async () => {
    expectTimedOut(await stall(`POST /v1/memory HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Ty`));
  });

  it("answers 408 request_timeout when its body stops short of its Content-Length, while other requests are served", async () => {
    const head = `POST /v1/memory HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    const [stalled, served] = await Promise.all([
      stall(`${head}{"text":"par`),
      fetch(`${server.url}/v1/memory/retrieve`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: '{"query":"par"}' }),
    ]);
    expectTimedOut(stalled);
    expect(served.status).toBe(200);
    expect(((await served.json()) as { memories: unknown[] }).memories).toEqual([]);
  });
});
