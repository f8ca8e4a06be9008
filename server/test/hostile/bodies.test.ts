import { afterAll, describe, expect, it } from "vitest";
import { bodyLimitFor } from "../../src/http/body";
import { MAX_BODY_DEPTH, MAX_BODY_VALUES } from "../../src/http/input-checks";
import { expectDocumentedError, useSeededServer } from "./fixture";
import { sendRaw, type RawResponse } from "./raw-http";
import { bodyRoutes, pathFor, withField } from "./route-catalogue";

/**
 * Every route that takes a body, fed what a hostile client sends: broken and non-object JSON, wrong types,
 * unicode a database or tokenizer chokes on, bytes that are not UTF-8, content types and encodings it did not
 * ask for, and bodies over the limit. Each answers its documented 4xx in the documented shape, and the
 * organization's stored data is exactly what it was before.
 */

const seeded = useSeededServer();
afterAll(() => seeded.expectUntouched());

function send(path: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return sendRaw(seeded.server.url, { path, body, headers: { authorization: `Bearer ${seeded.token}`, "content-type": "application/json", ...headers } });
}

const expectError = expectDocumentedError;

/** The JSON text of `body` with `marker` replaced by raw JSON (escapes JSON.stringify would not write). */
function rawJson(body: Record<string, unknown>, field: string, rawValue: string): string {
  return JSON.stringify(withField(body, field, "\u0001MARK\u0001")).replace('"\\u0001MARK\\u0001"', rawValue);
}

describe.each(bodyRoutes)("$name ($method $path)", (route) => {
  const path = () => pathFor(route, seeded.memoryId);
  const body = route.validBody!;
  const fields = route.stringFields ?? [];

  it("answers malformed JSON with invalid_json", async () => {
    for (const text of ['{"text": "x"', "{text: 'x'}", "{}}", "\u0000", "[1,]"]) expectError(await send(path(), text), 400, "invalid_json");
  });

  it("answers a body that is not an object with invalid_parameter", async () => {
    for (const text of ["[]", '"remember this"', "42", "null", "true", JSON.stringify([body])]) {
      expectError(await send(path(), text), 400, "invalid_parameter", null);
    }
  });

  // Metadata is free-form: any JSON value is data there.
  it.each(fields.filter((field) => !field.startsWith("metadata.")))("rejects a wrong type in %s, naming the field", async (field) => {
    for (const value of [42, true, ["a"], { a: 1 }]) expectError(await send(path(), JSON.stringify(withField(body, field, value))), 400, "invalid_parameter", field);
  });

  it.each(fields)("rejects a lone surrogate in %s, naming the field", async (field) => {
    for (const raw of ['"a\\ud800b"', '"\\udfff"', '"x\\ud83d"']) expectError(await send(path(), rawJson(body, field, raw)), 400, "invalid_parameter", field);
  });

  it.each(fields)("rejects a NUL character in %s, naming the field", async (field) => {
    for (const raw of ['"a\\u0000b"', '"\\u0000"']) expectError(await send(path(), rawJson(body, field, raw)), 400, "invalid_parameter", field);
  });

  it("rejects bytes that are not UTF-8 with invalid_json", async () => {
    const field = fields[0]!;
    for (const bad of [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc0, 0xaf]]) {
      const [before, after] = rawJson(body, field, '"MARK"').split("MARK");
      const bytes = Buffer.concat([Buffer.from(before!), Buffer.from(bad), Buffer.from(after!)]);
      expectError(await send(path(), bytes), 400, "invalid_json");
    }
  });

  it("rejects content types other than JSON and charsets other than UTF-8 with 415", async () => {
    const json = JSON.stringify(body);
    for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml", "application/json; charset=latin1", "application/json; charset=utf-16"]) {
      expectError(await send(path(), json, { "content-type": contentType }), 415, "unsupported_media_type");
    }
  });

  it("rejects an unknown Content-Encoding with 415, and a corrupt compressed body with 400", async () => {
    expectError(await send(path(), JSON.stringify(body), { "content-encoding": "br-unknown" }), 415, "unsupported_media_type");
    expectError(await send(path(), Buffer.from("not gzip at all"), { "content-encoding": "gzip" }), 400, "invalid_json");
  });

  it("answers a body over the route's limit with 413 naming the limit, declared or not, sent whole or in chunks", async () => {
    const limit = bodyLimitFor(route.path);
    const big = rawJson(body, fields[0]!, JSON.stringify("a".repeat(limit)));
    const tooLarge = `The request body is too large: at most ${limit} bytes are accepted.`;
    for (const headers of [{}, { "transfer-encoding": "chunked" }] as Array<Record<string, string>>) {
      const res = await send(path(), big, headers);
      expectError(res, 413, "payload_too_large");
      expect(res.json.error.message).toBe(tooLarge);
    }
    const declared = await send(path(), "{}", { "content-length": String(limit + 1) });
    expectError(declared, 413, "payload_too_large");
    expect(declared.json.error.message).toBe(tooLarge);
    // Far past it, refused before authentication.
    expectError(await send(path(), "{}", { "content-length": String(100 * 1024 * 1024) }), 413, "payload_too_large");
  });

  it("answers a body of more than 5,000 fields and list items with invalid_parameter, before the route's own checks", async () => {
    const wide = [
      { ...body, padding: Array(MAX_BODY_VALUES).fill(0) },
      { ...body, padding: Object.fromEntries(Array.from({ length: MAX_BODY_VALUES }, (_, i) => [`k${i}`, i])) },
      { ...body, padding: Array.from({ length: MAX_BODY_VALUES / 2 }, () => [1]) },
    ];
    for (const text of wide.map((b) => JSON.stringify(b))) {
      const res = await send(path(), text);
      expectError(res, 400, "invalid_parameter", null);
      expect(res.json.error.message).toBe(`The request body's fields and list items are more than ${MAX_BODY_VALUES} in all.`);
    }
    // Within it, the same fields reach the route's checks (here: an unknown field).
    expectError(await send(path(), JSON.stringify({ ...body, padding: Array(MAX_BODY_VALUES / 2).fill(0) })), 400, "unknown_parameter");
  });

  it("counts a body's separators before parsing it: too many are refused even when the JSON breaks after them", async () => {
    const padding = (count: number) => Array.from({ length: count }, (_, i) => `"k${i}":[0]`).join(",");
    // Strings holding commas, escaped quotes and backslashes: none of their commas counts.
    const decoy = JSON.stringify({ "text,": ',\\",",\\\\', ",,": "a,b,\\\\\\\",c" }).slice(1, -1);
    // Its commas outside strings, `count + 2`: the decoy's one, the one before "padding", `count - 1` in it, one after.
    const broken = (count: number) => `{${decoy},"padding":{${padding(count)}}, and then no JSON at all`;
    const res = await send(path(), broken(MAX_BODY_VALUES - 1));
    expectError(res, 400, "invalid_parameter", null);
    expect(res.json.error.message).toBe(`The request body's fields and list items are more than ${MAX_BODY_VALUES} in all.`);
    // One fewer, and the parse runs, and finds the JSON broken.
    expectError(await send(path(), broken(MAX_BODY_VALUES - 2)), 400, "invalid_json");
  });

  it("finds nesting too deep before parsing, naming the top-level field, even when the JSON breaks after it", async () => {
    const decoy = JSON.stringify({ "[[{": "{[\\\"[" }).slice(1, -1);
    const broken = (levels: number) => `{${decoy},"padding":${"[".repeat(levels)} and then no JSON at all`;
    const res = await send(path(), broken(MAX_BODY_DEPTH + 1));
    expectError(res, 400, "invalid_parameter", "padding");
    expect(res.json.error.message).toBe(`padding: must not be nested deeper than ${MAX_BODY_DEPTH} levels.`);
    // Within the bound the parse runs, and finds the JSON broken.
    expectError(await send(path(), broken(MAX_BODY_DEPTH)), 400, "invalid_json");
  });

  it("counts a repeated field as often as it is sent", async () => {
    const repeated = `{${`"padding":0,`.repeat(MAX_BODY_VALUES)}${JSON.stringify(body).slice(1)}`;
    const res = await send(path(), repeated);
    expectError(res, 400, "invalid_parameter", null);
    expect(res.json.error.message).toBe(`The request body's fields and list items are more than ${MAX_BODY_VALUES} in all.`);
  });

  it("names an unknown field of a hundred thousand characters by its first 200", async () => {
    const key = `k${"x".repeat(100_000)}`;
    const res = await send(path(), JSON.stringify({ ...body, [key]: 1 }));
    const named = `${key.slice(0, 200)}…`;
    expectError(res, 400, "unknown_parameter", named);
    expect(res.json.error.message).toBe(`Unknown field "${named}".`);
  });

  it("names a field of a hundred thousand characters by its first 200 in the input check's errors too", async () => {
    const key = `k${"x".repeat(100_000)}`;
    const named = `${key.slice(0, 200)}…`;
    for (const [value, problem] of [
      ["\u0000", "must not contain a NUL character (\\u0000)"],
      [JSON.parse(`${"[".repeat(40)}${"]".repeat(40)}`) as unknown, `must not be nested deeper than ${MAX_BODY_DEPTH} levels`],
    ] as const) {
      const res = await send(path(), JSON.stringify({ ...body, [key]: value }));
      expectError(res, 400, "invalid_parameter", named);
      expect(res.json.error.message).toBe(`${named}: ${problem}.`);
    }
  });

  it("rejects unknown fields, naming them, `__proto__` included and never merged into a prototype", async () => {
    expectError(await send(path(), JSON.stringify({ ...body, extraField: 1 })), 400, "unknown_parameter", "extraField");
    for (const key of ["__proto__", "constructor"]) {
      const polluting = JSON.stringify(body).replace(/^\{/, `{"${key}":{"polluted":true},`);
      expectError(await send(path(), polluting), 400, "unknown_parameter", key);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
