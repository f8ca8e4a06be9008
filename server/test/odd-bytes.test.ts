import { connect } from "node:net";
import { deflateSync, gzipSync } from "node:zlib";
import { DEFAULT_MODEL_ID, ZApiFailure, ZErrorBody } from "@engram/contract";
import { beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "@engram/test-support";
import { expectDocumentedError, useSeededServer } from "./hostile/fixture";
import { MAX_BODY_BYTES, MAX_RECORD_BODY_BYTES } from "../src/http/body";
import { sendRaw, type RawResponse, writeUntilClosed } from "./hostile/raw-http";

/**
 * Bytes a hostile client sends that a database, a decoder or the router chokes on: undecodable
 * percent-escapes, lone surrogates and NULs in any string, bytes that are not UTF-8, compressed bodies (good,
 * corrupt and bombs), declared sizes over the limit. Each answers a documented 4xx, the same on both backends,
 * and nothing is stored.
 */

const seeded = useSeededServer();
let server: TestServer;
let token: string;
let memoryId: string;
beforeAll(() => ({ server, token, memoryId } = seeded));

const expectNothingStored = () => seeded.expectUntouched();

function post(path: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return sendRaw(server.url, { path, body, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers } });
}

const expectError = expectDocumentedError;

const chat = (content: string, extra: Record<string, unknown> = {}) => ({ model: DEFAULT_MODEL_ID, messages: [{ role: "user", content }], ...extra });
const event = (extra: Record<string, unknown> = {}) => ({ type: "deploy.completed", text: "Deployed payments 1.2.", ...extra });

/** The JSON text of `body` with the string "MARK" replaced by raw JSON text (escapes JSON.stringify never writes). */
function withRaw(body: unknown, raw: string): string {
  return JSON.stringify(body).replace('"MARK"', raw);
}

/** Where a string may sit, per route, and the param the error names. */
const stringFields: Array<[path: string, body: unknown, param: string]> = [
  ["/v1/memory", { text: "MARK" }, "text"],
  ["/v1/memory/agents/bot", { text: "ok", subject: "MARK" }, "subject"],
  ["/v1/memory/recall", { query: "MARK" }, "query"],
  ["/v1/memory/MEMORY_ID/reinforce", { reason: "MARK" }, "reason"],
  ["/v1/memory/MEMORY_ID/suppress", { actor: "MARK" }, "actor"],
  ["/v1/memory/events", event({ source: "MARK" }), "source"],
  ["/v1/memory/events", event({ metadata: { deploy: { targets: ["eu", "MARK"] } } }), "metadata.deploy.targets.1"],
  ["/v1/chat/completions", chat("MARK"), "messages.0.content"],
  ["/v1/agents/bot/chat/completions", chat("hi", { user: "MARK" }), "user"],
];

describe("strings no database stores the same way", () => {
  it.each(stringFields)("are refused in %s (%j), naming the field", async (path, body, param) => {
    for (const raw of ['"a\\ud800b"', '"\\udfff"', '"x\\ud83d"', '"a\\u0000b"', '"\\u0000"']) {
      expectError(await post(path.replace("MEMORY_ID", memoryId), withRaw(body, raw)), 400, "invalid_parameter", param);
    }
    await expectNothingStored();
  });

  it("are refused in object keys too", async () => {
    for (const key of ["a\\ud800", "a\\u0000"]) {
      const body = JSON.stringify(event({ metadata: { deploy: { MARK: 1 } } })).replace('"MARK"', `"${key}"`);
      expectError(await post("/v1/memory/events", body), 400, "invalid_parameter", "metadata.deploy");
    }
    await expectNothingStored();
  });

  it("leave surrogate pairs (emoji) and other control characters alone", async () => {
    const res = await post("/v1/memory/recall", JSON.stringify({ query: "🧠 \u0001 \t deploy" }));
    expect(res.status, res.text).toBe(200);
  });
});

describe("path parameters", () => {
  const paths = [
    ["GET", "/v1/memory/{id}/provenance", "id"],
    ["POST", "/v1/memory/{id}/restore", "id"],
    ["DELETE", "/v1/memory/{id}", "id"],
    ["GET", "/v1/memory/agents/{id}/MEMORY_ID/provenance", "agentSlug"],
    ["POST", "/v1/agents/{id}/chat/completions", "agentSlug"],
  ] as const;
  const call = (method: string, path: string) =>
    sendRaw(server.url, {
      method,
      path: path.replace("MEMORY_ID", memoryId),
      headers: { authorization: `Bearer ${token}`, ...(method === "POST" ? { "content-type": "application/json" } : {}) },
      body: method === "POST" ? JSON.stringify(path.includes("chat") ? chat("hi") : {}) : undefined,
    });

  it.each(paths)("answer 400 invalid_parameter when they do not decode (%s %s)", async (method, path) => {
    for (const bad of ["%ZZ", "%ED%A0%80", "%E0%A4%A", "%", "%C0%AF", "%FF"]) expectError(await call(method, path.replace("{id}", bad)), 400, "invalid_parameter");
    await expectNothingStored();
  });

  it.each(paths)("answer 400 invalid_parameter naming the parameter when they hold a NUL (%s %s)", async (method, path, param) => {
    for (const bad of ["%00", "a%00b", `${memoryId}%00`]) expectError(await call(method, path.replace("{id}", bad)), 400, "invalid_parameter", param);
    await expectNothingStored();
  });

  it("answer by their rules at odd lengths", async () => {
    expectError(await call("GET", `/v1/memory/${"m".repeat(101)}/provenance`), 400, "invalid_parameter", "id");
    expectError(await call("GET", "/v1/memory/m/provenance"), 404, "memory_not_found");
    expectError(await call("GET", "/v1/memory//provenance"), 404, "route_not_found");
    expectError(await call("GET", `/v1/memory/agents/${"a".repeat(64)}/${memoryId}/provenance`), 400, "invalid_parameter", "agentSlug");
    expect((await call("GET", `/v1/memory/agents/${"a".repeat(63)}/${memoryId}/provenance`)).status).toBe(200);
  });
});

describe("query parameters", () => {
  it("answer 400 invalid_parameter naming the parameter when they do not decode, as path parameters do", async () => {
    const get = (query: string) => sendRaw(server.url, { method: "GET", path: `/v1/memory/${memoryId}/provenance?${query}`, headers: { authorization: `Bearer ${token}` } });
    for (const bad of ["%ZZ", "%ED%A0%80", "%E0%A4%A", "%", "%C0%AF", "%FF"]) {
      expectError(await get(`historyCursor=${bad}`), 400, "invalid_parameter", "historyCursor");
      expectError(await get(`historyLimit=5&historyCursor=${bad}`), 400, "invalid_parameter", "historyCursor");
    }
    expectError(await get("history%ZZ=5"), 400, "invalid_parameter", "history%ZZ");
    expect((await get("historyLimit=5")).status).toBe(200);
    await expectNothingStored();
  });
});

describe("bytes that are not UTF-8", () => {
  it("answer 400 invalid_json instead of being replaced with U+FFFD", async () => {
    for (const bad of [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf4, 0x90, 0x80, 0x80]]) {
      const [before, after] = JSON.stringify({ text: "MARK" }).split("MARK");
      expectError(await post("/v1/memory", Buffer.concat([Buffer.from(before!), Buffer.from(bad), Buffer.from(after!)])), 400, "invalid_json");
    }
    await expectNothingStored();
  });

  it("answer 415 when declared in another charset, and UTF-8 is accepted in any case or quoting", async () => {
    const body = JSON.stringify({ query: "deploy" });
    for (const charset of ["latin1", "utf-16", "utf-16le", "us-ascii", "nonsense"]) {
      expectError(await post("/v1/memory/recall", body, { "content-type": `application/json; charset=${charset}` }), 415, "unsupported_media_type");
    }
    for (const contentType of ["application/json; charset=utf-8", "application/json;charset=UTF-8", 'application/json; charset="utf-8"', "APPLICATION/JSON"]) {
      expect((await post("/v1/memory/recall", body, { "content-type": contentType })).status, contentType).toBe(200);
    }
  });
});

describe("compressed bodies", () => {
  it("are inflated (gzip and deflate) and validated as usual", async () => {
    const query = JSON.stringify({ query: "stored memory" });
    for (const [encoding, compressed] of [["gzip", gzipSync(query)], ["deflate", deflateSync(query)], ["GZIP", gzipSync(query)]] as const) {
      const res = await post("/v1/memory/recall", compressed, { "content-encoding": encoding });
      expect(res.status, res.text).toBe(200);
      expect(res.json.memories.map((m: { id: string }) => m.id)).toEqual([memoryId]);
    }
    expectError(await post("/v1/memory", gzipSync(JSON.stringify({ text: "" })), { "content-encoding": "gzip" }), 400, "invalid_parameter", "text");
    expectError(await post("/v1/memory", gzipSync(withRaw({ text: "MARK" }, '"\\u0000"')), { "content-encoding": "gzip" }), 400, "invalid_parameter", "text");
    await expectNothingStored();
  });

  it("answer 400 invalid_json when corrupt or truncated, and 415 in an encoding not supported", async () => {
    const good = gzipSync(JSON.stringify({ text: "never stored" }));
    expectError(await post("/v1/memory", Buffer.from("not gzip at all"), { "content-encoding": "gzip" }), 400, "invalid_json");
    expectError(await post("/v1/memory", good.subarray(0, good.length - 12), { "content-encoding": "gzip" }), 400, "invalid_json");
    expectError(await post("/v1/memory", Buffer.from("{}"), { "content-encoding": "deflate" }), 400, "invalid_json");
    for (const encoding of ["br", "compress", "gzip, gzip", "x-unknown"]) {
      expectError(await post("/v1/memory", good, { "content-encoding": encoding }), 415, "unsupported_media_type");
    }
    await expectNothingStored();
  });

  it("answer 413 when they inflate past 1 MiB, however small they were sent", async () => {
    // 64 MiB of one letter in a JSON string: about 64 KiB once compressed.
    const bomb = gzipSync(Buffer.concat([Buffer.from('{"text":"'), Buffer.alloc(64 * 1024 * 1024, "a"), Buffer.from('"}')]));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const res = await post("/v1/memory", bomb, { "content-encoding": "gzip" });
    expectError(res, 413, "payload_too_large");
    await expectNothingStored();
  });
});

/** Sends `head` (request line and headers) and no body; resolves with all the server wrote before it closed. */
const sendHeadOnly = (head: string) => writeUntilClosed(server.url, head);

describe("declared sizes", () => {
  it("with Expect: 100-continue over the route's limit answer 413 without inviting the body; within it, 100 Continue", async () => {
    const head = (path: string, length: number) =>
      `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${length}\r\n\r\n`;
    const invitedBy = (request: string) => {
      const { hostname, port } = new URL(server.url);
      return new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), hostname, () => socket.write(request));
        socket.once("data", (chunk: Buffer) => {
          resolve(chunk.toString("utf8"));
          socket.destroy();
        });
        socket.on("error", reject);
      });
    };
    for (const [path, limit] of [["/v1/memory", MAX_RECORD_BODY_BYTES], ["/v1/memory/events", MAX_RECORD_BODY_BYTES], ["/v1/chat/completions", MAX_BODY_BYTES]] as const) {
      for (const length of [limit + 1, 100 * 1024 * 1024]) {
        const refused = await sendHeadOnly(head(path, length));
        expect(refused.split("\r\n")[0], `${path} ${length}`).toBe("HTTP/1.1 413 Payload Too Large");
        expect(refused).not.toContain("100 Continue");
        expect(refused).toContain(`at most ${limit} bytes`);
      }
      expect((await invitedBy(head(path, limit))).split("\r\n")[0], path).toBe("HTTP/1.1 100 Continue");
    }
  });

  it("over the route's limit answer 413 at once, before authentication, without waiting for the body, and close the connection", async () => {
    for (const [path, limit] of [["/v1/memory", MAX_RECORD_BODY_BYTES], ["/v1/chat/completions", MAX_BODY_BYTES]] as const) {
      for (const auth of [`Authorization: Bearer ${token}\r\n`, ""]) {
        const head = `POST ${path} HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${limit + 1}\r\n\r\n`;
        // The body never comes: a server that waited for it would never answer, and one that kept the
        // connection open would never let `close` fire.
        const answer = await sendHeadOnly(head);
        const [status, ...rest] = answer.split("\r\n");
        expect(status).toBe("HTTP/1.1 413 Payload Too Large");
        expect(rest).toContain("Connection: close");
        expectError({ status: 413, headers: {}, text: answer, json: JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) }, 413, "payload_too_large");
      }
    }
  });

  it("of exactly the route's limit are read: 1 MiB for chat, 256 KiB for memories and events", async () => {
    const padded = (body: Record<string, unknown>, field: string, bytes: number) => {
      const text = JSON.stringify({ ...body, [field]: "" });
      return text.replace(`"${field}":""`, `"${field}":"${"p".repeat(bytes - text.length)}"`);
    };
    const chatBody = padded(chat("hi"), "user", MAX_BODY_BYTES);
    expect(Buffer.byteLength(chatBody)).toBe(MAX_BODY_BYTES);
    expectError(await post("/v1/chat/completions", chatBody), 400, "invalid_parameter", "user");
    for (const [path, body] of [["/v1/memory/recall", { query: "deploy" }], ["/v1/memory/events", event()]] as const) {
      const atLimit = padded(body, "pad", MAX_RECORD_BODY_BYTES);
      expect(Buffer.byteLength(atLimit)).toBe(MAX_RECORD_BODY_BYTES);
      expectError(await post(path, atLimit), 400, "unknown_parameter", "pad");
      expectError(await post(path, padded(body, "pad", MAX_RECORD_BODY_BYTES + 1)), 413, "payload_too_large");
    }
    await expectNothingStored();
  });
});

describe("bodies of other shapes and places", () => {
  it("that are not JSON objects answer 400 invalid_parameter on every route that takes one", async () => {
    for (const path of ["/v1/memory", "/v1/memory/recall", `/v1/memory/${memoryId}/reinforce`, "/v1/memory/events", "/v1/chat/completions"]) {
      for (const body of ["[]", '"text"', "42", "null", "true", "[{}]"]) expectError(await post(path, body), 400, "invalid_parameter", null);
    }
    await expectNothingStored();
  });

  it("that are one bad string, or nest too deep under an empty key, are told so in a sentence", async () => {
    const nul = await post("/v1/memory", '"\\u0000"');
    expectError(nul, 400, "invalid_parameter", null);
    expect(nul.json.error.message).toBe("The request body must not contain a NUL character (\\u0000).");
    const deep = await post("/v1/memory", `{"":${"[".repeat(40)}${"]".repeat(40)}}`);
    expectError(deep, 400, "invalid_parameter", null);
    expect(deep.json.error.message).toBe("The request body must not be nested deeper than 32 levels.");
    await expectNothingStored();
  });

  it("nested deeper than 32 levels answer 400 invalid_parameter naming the top-level field, at any depth", async () => {
    const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
    expectError(await post("/v1/memory/events", withRaw(event({ metadata: { a: "MARK" } }), nested(100_000))), 400, "invalid_parameter", "metadata");
    expectError(await post("/v1/memory/events", withRaw(event({ metadata: "MARK" }), `${'{"a":'.repeat(40_000)}1${"}".repeat(40_000)}`)), 400, "invalid_parameter", "metadata");
    expectError(await post("/v1/chat/completions", withRaw(chat("hi", { stop: "MARK" }), nested(300_000))), 400, "invalid_parameter", "stop");
    // Within the bound, each field's own rules answer (metadata allows 5 levels).
    expectError(await post("/v1/memory/events", withRaw(event({ metadata: { a: "MARK" } }), nested(31))), 400, "invalid_parameter", "metadata");
    await expectNothingStored();
  });

  it("in another content type answer 415, sent or declared", async () => {
    for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "application/json-patch+json", "application/jsonx", ""]) {
      expectError(await post("/v1/memory", JSON.stringify({ text: "x" }), { "content-type": contentType }), 415, "unsupported_media_type");
    }
    await expectNothingStored();
  });

  it("on GET and DELETE are ignored, whatever they hold", async () => {
    for (const [body, contentType] of [["{not json", "application/json"], ['{"text":"\\u0000"}', "application/json"], ["plain words", "text/plain"]]) {
      const res = await sendRaw(server.url, {
        method: "GET",
        path: `/v1/memory/${memoryId}/provenance`,
        headers: { authorization: `Bearer ${token}`, "content-type": contentType! },
        body,
      });
      expect(res.status, res.text).toBe(200);
    }
    const deleted = await sendRaw(server.url, { method: "DELETE", path: "/v1/memory/no-such-memory", headers: { authorization: `Bearer ${token}`, "content-type": "text/plain" }, body: "{" });
    expectError(deleted, 404, "memory_not_found");
  });
});

describe("headers", () => {
  it("that HTTP cannot parse (a NUL, conflicting Content-Lengths, a broken request line) answer 400 malformed_request in the documented shape", async () => {
    for (const head of [
      `GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n`,
      `POST /v1/memory HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
      `GARBAGE\r\n\r\n`,
    ]) {
      const answer = await sendHeadOnly(head);
      expect(answer.split("\r\n")[0], head).toBe("HTTP/1.1 400 Bad Request");
      const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
      expect(ZErrorBody.parse(body).error.code).toBe("malformed_request");
    }
  });

  it.each([
    ["with no Host (HTTP/1.1 requires one)", `GET /v1/health HTTP/1.1\r\nConnection: close\r\n\r\n`],
    ["with no Host, on the session routes", `POST /api/auth/login HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`],
    ["with no Host, for chat", `POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}`],
    ["with no Host, asking to continue", `POST /v1/memory HTTP/1.1\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n`],
    ["CONNECT (this is no proxy)", `CONNECT /v1/health HTTP/1.1\r\nHost: x\r\n\r\n`],
    ["CONNECT to an authority", `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n`],
  ])("%s answer 400 malformed_request in the documented shape, and close", async (_name, head) => {
    const answer = await sendHeadOnly(head);
    expect(answer.split("\r\n")[0], head).toBe("HTTP/1.1 400 Bad Request");
    expect(answer.toLowerCase()).toContain("\r\nconnection: close\r\n");
    const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
    expect(ZErrorBody.parse(body).error.code).toBe("malformed_request");
  });

  it("an HTTP/1.0 request needs no Host", async () => {
    const answer = await sendHeadOnly(`GET /v1/health HTTP/1.0\r\n\r\n`);
    expect(answer.split("\r\n")[0]).toMatch(/^HTTP\/1\.1 200 /);
  });

  it("repeated X-Service-Agent are joined by Node, and answer 400 naming it", async () => {
    const res = await sendRaw(server.url, {
      method: "POST",
      path: "/v1/memory/recall",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "x-service-agent": ["bot", "other"] as unknown as string },
      body: JSON.stringify({ query: "x" }),
    });
    expectError(res, 400, "invalid_parameter", "X-Service-Agent");
  });

  it("asking an expectation other than 100-continue are refused with 417 in the documented shape, and the server goes on serving", async () => {
    for (const expect of ["200-ok", "102-processing"]) {
      const res = await sendRaw(server.url, {
        method: "POST",
        path: "/v1/memory/retrieve",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", expect },
        body: JSON.stringify({ query: "x" }),
      });
      expectError(res, 417, "expectation_failed");
    }
    expect((await sendRaw(server.url, { method: "GET", path: "/v1/models", headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    await expectNothingStored();
  });

  it("of absurd length are refused by the HTTP parser with 431, and the server goes on serving", async () => {
    const answer = await sendHeadOnly(`GET /v1/models HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nX-Padding: ${"a".repeat(64 * 1024)}\r\n\r\n`);
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 431 Request Header Fields Too Large");
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)).error.code).toBe("headers_too_large");
    const long = await sendRaw(server.url, { method: "POST", path: "/v1/memory", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": "k".repeat(8000) }, body: "{}" });
    expectError(long, 400, "invalid_parameter", "Idempotency-Key");
  });
});

describe("the /api routes", () => {
  let cookie: string;
  let origin: string;
  let orgName: string;
  beforeAll(async () => {
    const owner = await server.signedIn(seeded.orgId, "owner");
    cookie = `engram_session=${await owner.sessionCookie()}`;
    origin = server.url;
    orgName = (await server.db.organization.findUniqueOrThrow({ where: { id: seeded.orgId } })).name;
  });

  /** The `/api` failure shape, with this status and code and nothing else. */
  function expectApiError(res: RawResponse, status: number, code: string): void {
    expect({ status: res.status, error: res.json?.error }, res.text).toEqual({ status, error: code });
    expect(ZApiFailure.strict().safeParse(res.json).success, res.text).toBe(true);
  }
  const patchOrganization = (body: Buffer | string, headers: Record<string, string> = {}) =>
    sendRaw(server.url, { method: "PATCH", path: "/api/organization", body, headers: { cookie, origin, "content-type": "application/json", ...headers } });
  const expectNameUnchanged = async () => expect((await server.db.organization.findUniqueOrThrow({ where: { id: seeded.orgId } })).name).toBe(orgName);

  it("inflate compressed bodies and check them as usual, answering in the /api shape", async () => {
    expectApiError(await patchOrganization(gzipSync(withRaw({ name: "MARK" }, '"a\\u0000"')), { "content-encoding": "gzip" }), 400, "invalid_parameter");
    expectApiError(await patchOrganization(deflateSync(JSON.stringify({ name: "   " })), { "content-encoding": "deflate" }), 400, "invalid_parameter");
    expectApiError(await patchOrganization(Buffer.from("not gzip at all"), { "content-encoding": "gzip" }), 400, "invalid_json");
    expectApiError(await patchOrganization(gzipSync(JSON.stringify({ name: "x" })), { "content-encoding": "br" }), 415, "unsupported_media_type");
    const bomb = gzipSync(Buffer.concat([Buffer.from('{"name":"'), Buffer.alloc(64 * 1024 * 1024, "a"), Buffer.from('"}')]));
    expectApiError(await patchOrganization(bomb, { "content-encoding": "gzip" }), 413, "payload_too_large");
    await expectNameUnchanged();
  });

  it("answer a declared size over 1 MiB with 413 in the /api shape at once, signed in or not, and close the connection", async () => {
    for (const sessionCookie of [`Cookie: ${cookie}\r\n`, ""]) {
      const head = `PATCH /api/organization HTTP/1.1\r\nHost: x\r\n${sessionCookie}Origin: ${origin}\r\nContent-Type: application/json\r\nContent-Length: ${100 * 1024 * 1024}\r\n\r\n`;
      const answer = await sendHeadOnly(head);
      const [status, ...rest] = answer.split("\r\n");
      expect(status).toBe("HTTP/1.1 413 Payload Too Large");
      expect(rest).toContain("Connection: close");
      expectApiError({ status: 413, headers: {}, text: answer, json: JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) }, 413, "payload_too_large");
    }
    const refused = await sendHeadOnly(
      `POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${100 * 1024 * 1024}\r\n\r\n`,
    );
    expect(refused.split("\r\n")[0]).toBe("HTTP/1.1 413 Payload Too Large");
    expect(refused).not.toContain("100 Continue");
    await expectNameUnchanged();
  });

  it("ignore bodies on GET and DELETE, whatever they hold", async () => {
    for (const [body, contentType] of [["{not json", "application/json"], ['{"name":"\\u0000"}', "application/json"], ["plain words", "text/plain"]]) {
      const res = await sendRaw(server.url, { method: "GET", path: "/api/organization", headers: { cookie, "content-type": contentType! }, body });
      expect(res.status, res.text).toBe(200);
    }
    const deleted = await sendRaw(server.url, { method: "DELETE", path: "/api/organization/tokens/tok_none", headers: { cookie, origin, "content-type": "text/plain" }, body: "{" });
    expectApiError(deleted, 404, "token_not_found");
  });
});
