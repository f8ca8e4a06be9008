import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { startTestServer, type TestServer } from "../../server/test/support/harness";
import { APIConnectionError, AuthenticationError, ConflictError, Engram, type Memory, NotFoundError, PermissionDeniedError } from "../src";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

describe("Engram SDK against a real server", () => {
  it("remembers, recalls with context, reinforces, suppresses, restores, inspects and tombstones", async () => {
    const engram = new Engram({ baseUrl: server.url, token: (await server.newTenant()).token });
    const memory = await engram.memory.remember({ text: "Refunds over $500 need a second approver.", subject: "refunds", memoryKind: "procedure" });
    expectTypeOf(memory).toEqualTypeOf<Memory>();
    expect(memory).toMatchObject({ state: "durable", subject: "refunds" });

    const recalled = await engram.memory.recall({ query: "who approves refunds", includeContext: true });
    expect(recalled.memories.map((m) => m.id)).toEqual([memory.id]);
    expect(recalled.context?.systemBlock).toContain("Refunds over $500 need a second approver.");
    expect((await engram.memory.search({ query: "refunds" })).memories).toHaveLength(1);
    expect((await engram.memory.retrieve({ query: "refunds" })).memories).toHaveLength(1);

    expect((await engram.memory.reinforce(memory.id, { reason: "helped" })).reinforcementCount).toBe(1);
    expect((await engram.memory.suppress(memory.id)).state).toBe("suppressed");
    expect((await engram.memory.restore(memory.id)).state).toBe("durable");
    expect((await engram.memory.tombstone(memory.id)).state).toBe("tombstoned");
    const provenance = await engram.memory.provenance(memory.id);
    expect(provenance.history.map((h) => h.action)).toEqual(["created", "reinforced", "suppressed", "restored", "tombstoned"]);
    expect(provenance.source.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("uses the agent path forms for an agent-bound client", async () => {
    const engram = new Engram({ baseUrl: server.url, token: (await server.newTenant()).token });
    const triage = engram.agent("triage");
    const own = await triage.memory.encode({ text: "Triage pages the owner of a P1 at once." });
    expect(own.agent).toBe("triage");
    expect((await engram.agent("support").memory.recall({ query: "triage owner" })).memories).toEqual([]);
    await expect(engram.agent("support").memory.provenance(own.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await triage.memory.provenance(own.id)).memory.id).toBe(own.id);
  });

  it("replays a write sent again with the same idempotency key, and refuses a different one", async () => {
    const engram = new Engram({ baseUrl: server.url, token: (await server.newTenant()).token });
    const first = await engram.memory.encode({ text: "Once only." }, { idempotencyKey: "sdk-1" });
    const again = await engram.memory.encode({ text: "Once only." }, { idempotencyKey: "sdk-1" });
    expect(again.id).toBe(first.id);
    const conflict = await engram.memory.encode({ text: "Something else." }, { idempotencyKey: "sdk-1" }).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict).toMatchObject({ status: 409, code: "idempotency_key_reused", type: "invalid_request_error" });
  });

  it("throws typed errors with status, code and request id", async () => {
    const bad = new Engram({ baseUrl: server.url, token: `acm_${"z".repeat(43)}` });
    const auth = await bad.memory.recall({ query: "x" }).catch((e: unknown) => e);
    expect(auth).toBeInstanceOf(AuthenticationError);
    expect(auth).toMatchObject({ status: 401, code: "invalid_api_key" });
    expect((auth as AuthenticationError).requestId).toMatch(/^req_/);

    const { orgId } = await server.newTenant();
    const readOnly = new Engram({ baseUrl: server.url, token: await server.newToken(orgId, { scopes: ["memory:read"] }) });
    await expect(readOnly.memory.encode({ text: "nope" })).rejects.toBeInstanceOf(PermissionDeniedError);

    const offline = new Engram({ baseUrl: "http://127.0.0.1:1", token: "acm_x" });
    await expect(offline.memory.recall({ query: "x" })).rejects.toBeInstanceOf(APIConnectionError);
  });

  it("reads its token from ENGRAM_TOKEN", async () => {
    const { token } = await server.newTenant();
    process.env.ENGRAM_TOKEN = token;
    try {
      expect((await new Engram({ baseUrl: server.url }).memory.recall({ query: "anything" })).memories).toEqual([]);
    } finally {
      delete process.env.ENGRAM_TOKEN;
    }
  });
});
