import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@engram/test-support";
import { ConflictError, Engram, InvalidRequestError } from "../src";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

const incident = {
  type: "incident.resolved",
  text: "INC-42 resolved: expired TLS cert on payments-api; rotated, expiry alert added.",
  source: "pagerduty",
  subject: "INC-42",
  metadata: { service: "payments-api", severity: "sev2" },
};

describe("events.send against a real server", () => {
  it("ingests an incident into a candidate memory and a workflow change, under the key Engram derives", async () => {
    const { token } = await server.newTenant();
    const engram = new Engram({ baseUrl: server.url, token });
    const result = await engram.events.send(incident);
    expect(result).toMatchObject({ replayed: false, keySource: "derived", environment: "production", triage: { rule: "incident.resolved", outcome: "candidate" } });
    expect(result.idempotencyKey).toMatch(/^derived:pagerduty:incident\.resolved:[0-9a-f]{32}$/);
    expect(result.candidateIds).toHaveLength(1);
    expect(result.workflowChanges).toEqual([expect.objectContaining({ workflow: "incident", subject: "INC-42", to: "resolved" })]);

    const provenance = await engram.memory.provenance(result.candidateIds[0]!);
    expect(provenance.source.kind).toBe("developer_event");
    expect(provenance.source.event?.id).toBe(result.eventId);
  });

  it("sends a CI run; the caller's key replays, a different event under it conflicts", async () => {
    const { token } = await server.newTenant();
    const engram = new Engram({ baseUrl: server.url, token });
    const ci = { type: "ci.run.failed", text: "payments-api main failed: flaky test in refunds suite", source: "github-actions", subject: "payments-api", metadata: { run: 981 } };
    const first = await engram.events.send(ci, { idempotencyKey: "ci-run-981" });
    const again = await engram.events.send(ci, { idempotencyKey: "ci-run-981" }).withResponse();
    expect(again.data).toMatchObject({ eventId: first.eventId, replayed: true, idempotencyKey: "ci-run-981" });
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    await expect(engram.events.send({ ...ci, text: "another run" }, { idempotencyKey: "ci-run-981" })).rejects.toBeInstanceOf(ConflictError);
  });

  it("sends no Idempotency-Key by default, so the same event sent twice, by two clients, is one event", async () => {
    const { orgId, token } = await server.newTenant();
    const first = await new Engram({ baseUrl: server.url, token }).events.send(incident);
    const redelivered = await new Engram({ baseUrl: server.url, token }).events.send({ ...incident, metadata: { severity: "sev2", service: "payments-api" } });
    expect(redelivered).toEqual({ ...first, replayed: true });
    // The deprecated option changes nothing; keys of the caller's own still make distinct events.
    const engram = new Engram({ baseUrl: server.url, token });
    expect(await engram.events.send(incident, { deriveIdempotencyKey: true })).toMatchObject({ eventId: first.eventId, replayed: true });
    const own = await engram.events.send(incident, { idempotencyKey: "pagerduty-delivery-2" });
    expect(own).toMatchObject({ replayed: false, keySource: "header", idempotencyKey: "pagerduty-delivery-2" });
    expect(await server.db.businessEvent.count({ where: { orgId } })).toBe(2);
  });

  it("refuses an invalid event type with the field at fault", async () => {
    const engram = new Engram({ baseUrl: server.url, token: (await server.newTenant()).token });
    const error = await engram.events.send({ type: "Not Dotted", text: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ status: 400, type: "invalid_request_error", param: "type" });
  });
});
