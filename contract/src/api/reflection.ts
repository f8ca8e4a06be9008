import { initContract } from "@ts-rest/core";
import { z } from "zod";
import { ZEnvironment, ZIsoDate } from "../common";
import { ZMemoryKind, ZMemoryState } from "../memory";
import { ZSuccess } from "./responses";

/** The reflection routes' interface version. */
export const reflectionInterfaceVersion = "3.12.1";

export const ZReflectionProcess = z.enum(["duplicates", "contradictions", "staleness", "activation", "candidates"]);
export type TReflectionProcess = z.infer<typeof ZReflectionProcess>;

export const ZReflectionAction = z.enum([
  "suppressed_duplicate",
  "reinforced_survivor",
  "superseded",
  "flagged_stale",
  "activation_refreshed",
  "promoted",
  "expired",
]);
export type TReflectionAction = z.infer<typeof ZReflectionAction>;

const ZToggle = z.boolean();
const ZShare = z.number().min(0).max(1);

/** Every setting, with its bounds; PATCH takes any part of it. */
export const ZReflectionSettings = z
  .object({
    enabled: ZToggle,
    /** How often the scheduler runs reflection over each environment. */
    intervalMinutes: z.number().int().min(5).max(7 * 24 * 60),
    processes: z
      .object({
        duplicates: z.object({ enabled: ZToggle, similarity: z.number().min(0.5).max(1) }).strict(),
        contradictions: z.object({ enabled: ZToggle }).strict(),
        staleness: z.object({ enabled: ZToggle, staleAfterDays: z.number().int().min(1).max(3650), maxConfidence: ZShare }).strict(),
        activation: z.object({ enabled: ZToggle }).strict(),
        candidates: z
          .object({
            enabled: ZToggle,
            /** Promote corroborated candidates; off, they wait for a person. */
            autoPromote: ZToggle,
            promoteMinConfidence: ZShare,
            promoteMinReinforcements: z.number().int().min(1).max(1000),
            promoteMinOccurrences: z.number().int().min(2).max(1000),
            expireAfterDays: z.number().int().min(1).max(3650),
          })
          .strict(),
      })
      .strict(),
  })
  .strict();
export type TReflectionSettings = z.infer<typeof ZReflectionSettings>;

/** A PATCH body: any part of the settings, each part strict, so a misspelt field is named. */
export const ZReflectionSettingsPatch = z
  .object({
    enabled: ZToggle.optional(),
    intervalMinutes: ZReflectionSettings.shape.intervalMinutes.optional(),
    processes: z
      .object(
        Object.fromEntries(
          Object.entries(ZReflectionSettings.shape.processes.shape).map(([name, schema]) => [name, schema.partial().strict().optional()]),
        ) as { [K in keyof typeof ZReflectionSettings.shape.processes.shape]: z.ZodOptional<ReturnType<(typeof ZReflectionSettings.shape.processes.shape)[K]["partial"]>> },
      )
      .strict()
      .optional(),
  })
  .strict();
export type TReflectionSettingsPatch = z.infer<typeof ZReflectionSettingsPatch>;

const ZSettingsAnswer = ZSuccess.extend({
  settings: ZReflectionSettings,
  version: z.number().int(),
  updatedAt: ZIsoDate.nullable(),
  updatedBy: z.string().nullable(),
});

export const ZReflectionEvent = z.object({
  id: z.string(),
  environment: ZEnvironment,
  runId: z.string(),
  process: ZReflectionProcess,
  action: ZReflectionAction,
  memoryId: z.string().nullable(),
  relatedId: z.string().nullable(),
  reason: z.string(),
  details: z.record(z.unknown()).nullable(),
  createdAt: ZIsoDate,
});

export const ZProcessCounts = z.object({ examined: z.number().int(), actions: z.number().int() });

export const ZReflectionAudit = z.object({
  id: z.string(),
  environment: ZEnvironment,
  trigger: z.enum(["schedule", "person", "cli"]),
  triggeredBy: z.string().nullable(),
  status: z.enum(["running", "completed", "failed"]),
  startedAt: ZIsoDate,
  finishedAt: ZIsoDate.nullable(),
  counts: z.record(ZReflectionProcess, ZProcessCounts),
  errors: z.array(z.object({ process: z.string(), message: z.string() })),
});

/** Buckets in order; `to` is null for an open-ended last bucket. */
const ZHistogram = z.array(z.object({ from: z.number(), to: z.number().nullable(), count: z.number().int() }));

export const ZMetricsSummary = z.object({
  environment: ZEnvironment,
  total: z.number().int(),
  byState: z.record(ZMemoryState, z.number().int()),
  byKind: z.record(ZMemoryKind, z.number().int()),
  /** Over durable memories; null when there are none. */
  averageActivation: z.number().nullable(),
  averageConfidence: z.number().nullable(),
  flagged: z.object({ stale: z.number().int(), superseded: z.number().int(), duplicates: z.number().int() }),
});

export const ZTrendDay = z.object({
  day: z.string(),
  encodes: z.number().int(),
  retrievals: z.number().int(),
  reinforcements: z.number().int(),
  suppressions: z.number().int(),
  promotions: z.number().int(),
  reflectionActions: z.number().int(),
  /** Developer events received that day. */
  events: z.number().int(),
});

export const ZMetricsTrend = z.object({ environment: ZEnvironment, from: z.string(), to: z.string(), days: z.array(ZTrendDay) });
export const ZMetricsDistribution = z.object({ environment: ZEnvironment, activation: ZHistogram, confidence: ZHistogram, ageDays: ZHistogram });

const ZDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a day, YYYY-MM-DD");
const ZEnvironmentQuery = z.object({ environment: ZEnvironment.default("production") }).strict();
const ZCursorQuery = { cursor: z.string().max(200).optional(), limit: z.coerce.number().int().min(1).max(200).default(50) };

const c = initContract();

export const reflectionContract = c.router({
  getSettings: { method: "GET", path: "/memory/reflection/settings", responses: { 200: ZSettingsAnswer }, summary: "Reflection settings (defaults until changed)" },
  updateSettings: {
    method: "PATCH",
    path: "/memory/reflection/settings",
    body: ZReflectionSettingsPatch,
    responses: { 200: ZSettingsAnswer },
    summary: "Change any part of the reflection settings (owners and admins)",
  },
  events: {
    method: "GET",
    path: "/memory/reflection/events",
    query: z
      .object({
        environment: ZEnvironment.default("production"),
        process: ZReflectionProcess.optional(),
        action: ZReflectionAction.optional(),
        from: ZIsoDate.optional(),
        to: ZIsoDate.optional(),
        ...ZCursorQuery,
      })
      .strict(),
    responses: { 200: ZSuccess.extend({ events: z.array(ZReflectionEvent), nextCursor: z.string().nullable() }) },
    summary: "What reflection did, newest first, a page at a time",
  },
  audits: {
    method: "GET",
    path: "/memory/reflection/audits",
    query: z.object({ environment: ZEnvironment.default("production"), ...ZCursorQuery }).strict(),
    responses: { 200: ZSuccess.extend({ audits: z.array(ZReflectionAudit), nextCursor: z.string().nullable() }) },
    summary: "One audit per run, newest first",
  },
  metrics: {
    method: "GET",
    path: "/memory/reflection/metrics",
    query: z.object({ environment: ZEnvironment.default("production"), from: ZDay.optional(), to: ZDay.optional() }).strict(),
    responses: { 200: ZSuccess.extend({ summary: ZMetricsSummary, trend: ZMetricsTrend, distribution: ZMetricsDistribution }) },
    summary: "Summary, trend and distribution together",
  },
  metricsSummary: {
    method: "GET",
    path: "/memory/reflection/metrics/summary",
    query: ZEnvironmentQuery,
    responses: { 200: ZSuccess.merge(ZMetricsSummary) },
    summary: "Memories by state and kind, average activation and confidence",
  },
  metricsTrend: {
    method: "GET",
    path: "/memory/reflection/metrics/trend",
    query: z.object({ environment: ZEnvironment.default("production"), from: ZDay.optional(), to: ZDay.optional() }).strict(),
    responses: { 200: ZSuccess.merge(ZMetricsTrend) },
    summary: "Per-day series over a range (default the last 30 days, at most 366)",
  },
  metricsDistribution: {
    method: "GET",
    path: "/memory/reflection/metrics/distribution",
    query: ZEnvironmentQuery,
    responses: { 200: ZSuccess.merge(ZMetricsDistribution) },
    summary: "Histograms of activation, confidence and age of durable memories",
  },
  run: {
    method: "POST",
    path: "/memory/reflection/run",
    body: z.object({ environment: ZEnvironment.default("production") }).strict().optional(),
    responses: { 202: ZSuccess.extend({ auditId: z.string(), environment: ZEnvironment }) },
    summary: "Start a run now (owners and admins); 409 while one is running",
  },
});
