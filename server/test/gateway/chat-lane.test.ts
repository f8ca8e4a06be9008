import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "@engram/test-support";
import { MODEL, startGateway, tenantWithMemories } from "./support";

/**
 * Chat completions are served on a lane of their own, past Express's router; with a query string the same
 * route goes through the router. Both must answer every request alike: status, body and headers.
 */
let server: TestServer;
let stop: () => Promise<void>;
let token: string;
let outsider: string;
beforeAll(async () => {
  ({ server, stop } = await startGateway());
  ({ token } = await tenantWithMemories(server, [{ text: "Payments deploy with make release.", agent: "triage-bot" }]));
  outsider = await server.newToken(await server.newOrg(), { scopes: ["memory:read"] });
});
afterAll(() => stop?.());

const chat = JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "how do payments deploy?" }] });

interface Sent {
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

/** Headers that differ between any two answers, whatever served them. */
const VARYING = new Set(["date", "x-request-id", "ratelimit-remaining", "x-ratelimit-remaining", "ratelimit-reset", "x-ratelimit-reset", "keep-alive"]);

async function answer({ path, headers = {}, body = chat }: Sent) {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
    body,
  });
  const text = await res.text();
  const kept = [...res.headers].filter(([name]) => !VARYING.has(name));
  // Completion ids and creation times are new on every answer.
  return { status: res.status, headers: Object.fromEntries(kept), body: text.replace(/"id":"chatcmpl-[^"]+"/, "").replace(/"created":\d+/, "") };
}

const cases: Array<[string, Sent]> = [
  ["a pass-through chat", { path: "/v1/chat/completions", headers: { "x-engram-memory": "off" } }],
  ["a memory-grounded chat in an agent's boundary", { path: "/v1/agents/triage-bot/chat/completions" }],
  ["a percent-encoded agent slug", { path: "/v1/agents/triage%2Dbot/chat/completions" }],
  ["a slug that is not percent-encoded UTF-8", { path: "/v1/agents/%ED%A0%80/chat/completions" }],
  ["a path agent and a different header agent", { path: "/v1/agents/triage-bot/chat/completions", headers: { "x-service-agent": "other-bot" } }],
  ["no token", { path: "/v1/chat/completions", headers: { authorization: "" } }],
  ["a token without inference:chat", { path: "/v1/chat/completions", headers: { authorization: `Bearer ${"OUTSIDER"}` } }],
  ["a body that is not JSON", { path: "/v1/chat/completions", body: "{not json" }],
  ["another content type", { path: "/v1/chat/completions", headers: { "content-type": "text/plain" } }],
  ["another charset", { path: "/v1/chat/completions", headers: { "content-type": "application/json; charset=latin1" } }],
  ["bytes that are not UTF-8", { path: "/v1/chat/completions", body: Uint8Array.from([0x7b, 0xff, 0x7d]) }],
  ["a gzipped body", { path: "/v1/chat/completions", headers: { "content-encoding": "gzip" }, body: gzipSync(chat) }],
  ["an unsupported content encoding", { path: "/v1/chat/completions", headers: { "content-encoding": "br" } }],
  ["a NUL in a message", { path: "/v1/chat/completions", body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "a\u0000b" }] }) }],
  ["an unknown model", { path: "/v1/chat/completions", body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }) }],
  ["an unknown field", { path: "/v1/chat/completions", body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }], tools: [] }) }],
];

describe("the chat lane and the router answer alike", () => {
  it.each(cases)("%s", async (_name, sent) => {
    const headers = Object.fromEntries(Object.entries(sent.headers ?? {}).map(([name, value]) => [name, value === "Bearer OUTSIDER" ? `Bearer ${outsider}` : value]));
    const viaLane = await answer({ ...sent, headers });
    const viaRouter = await answer({ ...sent, headers, path: `${sent.path}?via=router` });
    expect(viaLane).toEqual(viaRouter);
  });

  it("refuses a declared oversized body from its headers alone, on both", async () => {
    const oversized = (path: string) =>
      new Promise<string>((resolve, reject) => {
        // A raw request: fetch would send the body it declares.
        import("node:net").then(({ connect }) => {
          const { port } = new URL(server.url);
          const socket = connect(Number(port), "127.0.0.1", () => {
            socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n`);
          });
          let raw = "";
          socket.on("data", (data) => (raw += data.toString()));
          socket.on("end", () => resolve(raw.split("\r\n")[0]!));
          socket.on("error", reject);
        });
      });
    expect(await oversized("/v1/chat/completions")).toBe("HTTP/1.1 413 Payload Too Large");
    expect(await oversized("/v1/chat/completions?via=router")).toBe("HTTP/1.1 413 Payload Too Large");
  });
});
