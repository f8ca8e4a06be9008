import { apiContract } from "@engram/contract";
import { initServer } from "@ts-rest/express";
import type { ReflectionEventRecord, ReflectionRunRecord } from "../../domain/reflection/records";
import type { ReflectionService } from "../../domain/reflection/reflection-service";
import { actorOf } from "./session-auth";

const s = initServer();
const ok = { success: true as const };

const eventView = (event: ReflectionEventRecord) => ({
  id: event.id,
  environment: event.environment,
  runId: event.runId,
  process: event.process,
  action: event.action,
  memoryId: event.memoryId,
  relatedId: event.relatedId,
  reason: event.reason,
  details: event.details,
  createdAt: event.createdAt.toISOString(),
});

const auditView = (run: ReflectionRunRecord) => ({
  id: run.id,
  environment: run.environment,
  trigger: run.trigger,
  triggeredBy: run.triggeredBy,
  status: run.status,
  startedAt: run.startedAt.toISOString(),
  finishedAt: run.finishedAt?.toISOString() ?? null,
  counts: run.counts,
  errors: run.errors,
});

const settingsView = (answer: Awaited<ReturnType<ReflectionService["settings"]>>) => ({
  ...ok,
  settings: answer.settings,
  version: answer.version,
  updatedAt: answer.updatedAt?.toISOString() ?? null,
  updatedBy: answer.updatedBy,
});

export function reflectionRoutes(reflection: ReflectionService) {
  return s.router(apiContract.reflection, {
    getSettings: async ({ res }) => ({ status: 200 as const, body: settingsView(await reflection.settings(actorOf(res))) }),
    updateSettings: async ({ body, res }) => ({ status: 200 as const, body: settingsView(await reflection.updateSettings(actorOf(res), body)) }),
    events: async ({ query, res }) => {
      const { environment, ...filter } = query;
      const { events, nextCursor } = await reflection.events(actorOf(res), environment, filter);
      return { status: 200 as const, body: { ...ok, events: events.map(eventView), nextCursor } };
    },
    audits: async ({ query, res }) => {
      const { audits, nextCursor } = await reflection.audits(actorOf(res), query.environment, query);
      return { status: 200 as const, body: { ...ok, audits: audits.map(auditView), nextCursor } };
    },
    metrics: async ({ query, res }) => ({ status: 200 as const, body: { ...ok, ...(await reflection.metrics(actorOf(res), query.environment, query)) } }),
    metricsSummary: async ({ query, res }) => ({ status: 200 as const, body: { ...ok, ...(await reflection.metricsSummary(actorOf(res), query.environment)) } }),
    metricsTrend: async ({ query, res }) => ({ status: 200 as const, body: { ...ok, ...(await reflection.metricsTrend(actorOf(res), query.environment, query)) } }),
    metricsDistribution: async ({ query, res }) => ({
      status: 200 as const,
      body: { ...ok, ...(await reflection.metricsDistribution(actorOf(res), query.environment)) },
    }),
    run: async ({ body, res }) => {
      const environment = body?.environment ?? "production";
      const run = await reflection.run(actorOf(res), environment);
      return { status: 202 as const, body: { ...ok, auditId: run.id, environment } };
    },
  });
}
