import { ZErrorBody } from "@engram/contract";
import { afterAll, describe, expect, it } from "vitest";
import { expectDocumentedError, useSeededServer } from "./fixture";
import { sendRaw, type RawResponse } from "./raw-http";
import { routes } from "./route-catalogue";

/**
 * Odd bytes in path parameters, on every route that has one: malformed percent-escapes, escapes of bytes
 * that are not UTF-8, NUL, encoded slashes and dots, over-long ids. Each answers a documented 4xx (400 for
 * what cannot be a parameter, 404 for a well-formed id that names nothing), the same on both backends, and
 * the stored memory is untouched.
 */

const seeded = useSeededServer();
afterAll(() => seeded.expectUntouched());

function call(method: string, path: string): Promise<RawResponse> {
  const hasBody = method === "POST";
  return sendRaw(seeded.server.url, {
    method,
    path,
    headers: { authorization: `Bearer ${seeded.token}`, ...(hasBody ? { "content-type": "application/json" } : {}) },
    body: hasBody ? (path.includes("chat/completions") ? JSON.stringify({ model: "engram-memory-1", messages: [{ role: "user", content: "hi" }] }) : "{}") : undefined,
  });
}

function expectError(res: RawResponse, status: number, codes: string[]): void {
  expectDocumentedError(res, status, codes);
}

/** Escapes that cannot be decoded into a well-formed string: never a 500. */
const undecodable = ["%ZZ", "%", "%E0%A4%A", "%ED%A0%80", "%C0%AF", "%FF", "abc%2", "%F8%88%80%80%80"];

const memoryRoutes = routes.filter((route) => route.path.includes("{id}"));

describe.each(memoryRoutes)("$name ($method $path)", (route) => {
  it("answers 400 invalid_parameter to an id that does not decode", async () => {
    for (const id of undecodable) expectError(await call(route.method, route.path.replace("{id}", id)), 400, ["invalid_parameter"]);
  });

  it("answers 400 to a NUL in the id", async () => {
    for (const id of ["%00", `${seeded.memoryId}%00`, "a%00b"]) expectError(await call(route.method, route.path.replace("{id}", id)), 400, ["invalid_parameter"]);
  });

  it("answers 400 to an id over 100 characters and 404 to well-formed ids that name nothing", async () => {
    expectError(await call(route.method, route.path.replace("{id}", "m".repeat(101))), 400, ["invalid_parameter"]);
    for (const id of ["%F0%9F%A7%A0", "mem_%E2%80%AE", "..", "%2E%2E", "mem%2F..%2Fx", "%20", "mem_does_not_exist"]) {
      const res = await call(route.method, route.path.replace("{id}", id));
      // An encoded slash or dot segment may route nowhere (route_not_found) or name no memory: both are 404.
      expectError(res, 404, ["memory_not_found", "route_not_found"]);
    }
  });
});

const agentRoutes = routes.filter((route) => route.path.includes("hostile-agent"));

describe.each(agentRoutes)("agent slug of $name ($method $path)", (route) => {
  const withSlug = (slug: string) => route.path.replace("hostile-agent", slug).replace("{id}", seeded.memoryId);

  it("answers 400 to slugs that do not decode, hold NUL, or break the slug rules", async () => {
    for (const slug of [...undecodable, "%00", "Upper", "a%20b", "-lead", "x".repeat(64), "%E2%80%AE"]) {
      expectError(await call(route.method, withSlug(slug)), 400, ["invalid_parameter"]);
    }
  });
});

describe("paths outside every route", () => {
  it("answer 404 route_not_found or 400, never 500, for odd bytes anywhere in the path", async () => {
    for (const path of ["/v1/%ZZ", "/v1/memory/%ZZ", "/v1/%00", "/v1/memory/a/b/c/d/e", "/v1/agents/%E0%A4%A/chat/completions", "/v1//memory", "/v1/memory/%2F"]) {
      for (const method of ["GET", "POST", "DELETE", "PUT", "PATCH"]) {
        const res = await call(method, path);
        expect([400, 404, 405], `${method} ${path}: ${res.text}`).toContain(res.status);
        expect(ZErrorBody.safeParse(res.json).success, res.text).toBe(true);
      }
    }
  });
});
