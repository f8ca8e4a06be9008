import { contract } from "@engram/contract";
import { initServer } from "@ts-rest/express";
import type { EventIngestion } from "../domain/events/ingestion";
import { refuseAgentHeader } from "./agent-header";
import { callerOf } from "./auth";

const s = initServer();

export function eventRoutes(events: EventIngestion) {
  return s.router(contract.events, {
    ingest: async ({ headers, body, req, res }) => {
      refuseAgentHeader(req, "POST /v1/memory/events", "events belong to the whole organization");
      const result = await events.ingest(callerOf(res), body, headers["idempotency-key"]);
      if (result.replayed) res.setHeader("Idempotent-Replayed", "true");
      return { status: 201 as const, body: result.body };
    },
  });
}
