import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../src/openapi";

const committed = JSON.parse(readFileSync(new URL("../openapi.json", import.meta.url), "utf8"));
const generated = buildOpenApiDocument();

describe("openapi.json", () => {
  it("is what the contract generates (run `pnpm openapi` after changing the contract)", () => {
    expect(committed).toEqual(JSON.parse(JSON.stringify(generated)));
  });

  it("declares bearer security, an operation id and the error responses on every operation", () => {
    expect(generated.components?.securitySchemes?.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(generated.security).toEqual([{ bearerAuth: [] }]);
    const operations = Object.values(generated.paths).flatMap((item) => Object.values(item as Record<string, { operationId?: string; responses: object }>));
    expect(operations.length).toBeGreaterThanOrEqual(18);
    const ids = operations.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const op of operations) expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["400", "401", "403", "429", "500"]));
  });

  it("marks every /api operation private and unstable, with its own version and the session cookie", () => {
    const entries = Object.entries(generated.paths).filter(([path]) => path.startsWith("/api/"));
    expect(entries.length).toBeGreaterThanOrEqual(20);
    for (const [path, item] of entries) {
      for (const operation of Object.values(item as Record<string, Record<string, unknown>>)) {
        const version = path.startsWith("/api/memory/reflection/") ? "3.12.1" : "3.9.0";
        expect(operation).toMatchObject({ "x-engram-private": true, "x-engram-stability": "unstable", "x-engram-interface-version": version });
        expect(operation.security).toEqual(path === "/api/auth/login" ? [] : [{ sessionCookie: [] }]);
      }
    }
    expect(entries.filter(([path]) => path.startsWith("/api/memory/reflection/"))).toHaveLength(8);
    expect(generated.components?.securitySchemes?.sessionCookie).toMatchObject({ type: "apiKey", in: "cookie", name: "engram_session" });
  });

  it("carries request examples for the write and retrieve routes", () => {
    const encode = generated.paths["/v1/memory"]?.post;
    expect(encode?.requestBody).toMatchObject({ content: { "application/json": { example: { text: expect.any(String) } } } });
    const recall = generated.paths["/v1/memory/recall"]?.post;
    expect(recall?.requestBody).toMatchObject({ content: { "application/json": { example: { query: expect.any(String) } } } });
  });
});
