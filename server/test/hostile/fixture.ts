import { memoryScopes, ZErrorBody } from "@engram/contract";
import { afterAll, beforeAll, expect } from "vitest";
import { rawRequest, startTestServer, type TestServer } from "@engram/test-support";
import type { RawResponse } from "./raw-http";

export const SEEDED_TEXT = "The one stored memory.";

/** A server (rate limits off) and one organization holding one memory, which hostile requests must not touch. */
export interface SeededServer {
  server: TestServer;
  orgId: string;
  /** Every memory scope and inference:chat, production. */
  token: string;
  memoryId: string;
  /** The organization still holds exactly its one memory, unchanged, and nothing else was stored. */
  expectUntouched(): Promise<void>;
}

/** Starts the seeded server before the file's tests and stops it after; fields are set once beforeAll ran. */
export function useSeededServer(): SeededServer {
  const seeded = { expectUntouched } as SeededServer;
  beforeAll(async () => {
    seeded.server = await startTestServer({ rateLimits: "off" });
    seeded.orgId = await seeded.server.newOrg();
    seeded.token = await seeded.server.newToken(seeded.orgId, { scopes: [...memoryScopes, "inference:chat"] });
    const created = await rawRequest(seeded.server.url, "/v1/memory", { token: seeded.token, body: JSON.stringify({ text: SEEDED_TEXT }) });
    seeded.memoryId = created.body.memory.id;
  });
  afterAll(() => seeded.server?.stop());

  async function expectUntouched(): Promise<void> {
    const { db } = seeded.server;
    const where = { orgId: seeded.orgId };
    const memories = await db.memory.findMany({ where });
    expect(memories.map((m) => [m.id, m.text, m.state, m.reinforcementCount])).toEqual([[seeded.memoryId, SEEDED_TEXT, "durable", 0]]);
    expect(await db.memoryHistory.count({ where: { memoryId: seeded.memoryId } })).toBe(1);
    expect(await db.businessEvent.count({ where })).toBe(0);
    expect(await db.idempotencyRecord.count({ where })).toBe(0);
    expect(await db.workflowState.count({ where })).toBe(0);
    expect(await db.agent.count({ where })).toBe(0);
  }
  return seeded;
}

/** The documented error: its status and code, the contract's shape, no internals, and the field at fault when given. */
export function expectDocumentedError(res: RawResponse, status: number, code: string | readonly string[], param?: string | null): void {
  const codes = typeof code === "string" ? [code] : code;
  expect({ status: res.status, known: codes.includes(res.json?.error?.code) }, res.text).toEqual({ status, known: true });
  expect(ZErrorBody.safeParse(res.json).success, res.text).toBe(true);
  expect(res.text).not.toMatch(/prisma|sqlite|postgres|at \w+ \(|stack/i);
  if (param !== undefined) expect(res.json.error.param, res.text).toBe(param);
}
