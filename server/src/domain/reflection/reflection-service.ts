import { type TEnvironment, type TReflectionAction, type TReflectionProcess, type TReflectionSettingsPatch, ZReflectionSettings } from "@engram/contract";
import type { Clock } from "../kernel/clock";
import { AppError } from "../kernel/errors";
import { decodeCursor, encodeCursor, pageOf } from "../kernel/page-cursor";
import { storableTime } from "../kernel/storable-time";
import { type OrgActor, requireManager } from "../people/roles";
import type { Store } from "../store";
import type { MetricsService, TrendRange } from "./metrics/metrics-service";
import type { ReflectionEventRecord, ReflectionRunRecord, ReflectionScope } from "./records";
import type { ReflectionRunner } from "./runner";
import { applyPatch, settingsFrom } from "./settings";

export interface EventQuery {
  process?: TReflectionProcess;
  action?: TReflectionAction;
  from?: string;
  to?: string;
  cursor?: string;
  limit: number;
}

/**
 * Reflection for signed-in people: everyone in the organization reads its settings, events, audits and
 * metrics; owners and admins change the settings and start runs. Each environment is its own scope.
 */
export function reflectionService(store: Store, deps: { clock: Clock; runner: ReflectionRunner; metrics: MetricsService }) {
  const { clock, runner, metrics } = deps;
  const scopeOf = (actor: OrgActor, environment: TEnvironment): ReflectionScope => ({ orgId: actor.orgId, environment });

  async function settings(actor: OrgActor) {
    const stored = await store.reflectionSettings.find(actor.orgId);
    return {
      settings: settingsFrom(stored?.settings),
      version: stored?.version ?? 0,
      updatedAt: stored?.updatedAt ?? null,
      updatedBy: stored?.updatedBy ?? null,
    };
  }

  return {
    settings,

    /** Applies the changes over the current settings, only if nobody saved in between (else 409). */
    async updateSettings(actor: OrgActor, patch: TReflectionSettingsPatch) {
      requireManager(actor, "change reflection settings");
      const current = await settings(actor);
      const next = ZReflectionSettings.parse(applyPatch(current.settings, patch));
      const at = clock();
      if (!(await store.reflectionSettings.save(actor.orgId, next, current.version, at, actor.label))) {
        throw new AppError("edit_conflict", "The reflection settings changed while this change was being made; read them again and retry.");
      }
      return { settings: next, version: current.version + 1, updatedAt: at, updatedBy: actor.label };
    },

    async events(actor: OrgActor, environment: TEnvironment, query: EventQuery): Promise<{ events: ReflectionEventRecord[]; nextCursor: string | null }> {
      const before = decodeCursor(query.cursor);
      const filter = {
        process: query.process,
        action: query.action,
        from: query.from ? storableTime(new Date(query.from), "from") : undefined,
        to: query.to ? storableTime(new Date(query.to), "to") : undefined,
      };
      const rows = await store.reflectionEvents.list(scopeOf(actor, environment), filter, before, query.limit + 1);
      const { items, nextCursor } = pageOf(rows, query.limit, (event) => encodeCursor(event));
      return { events: items, nextCursor };
    },

    async audits(actor: OrgActor, environment: TEnvironment, query: { cursor?: string; limit: number }): Promise<{ audits: ReflectionRunRecord[]; nextCursor: string | null }> {
      const before = decodeCursor(query.cursor);
      const rows = await store.reflectionRuns.list(scopeOf(actor, environment), before, query.limit + 1);
      const { items, nextCursor } = pageOf(rows, query.limit, (run) => encodeCursor({ createdAt: run.startedAt, id: run.id }));
      return { audits: items, nextCursor };
    },

    metrics: (actor: OrgActor, environment: TEnvironment, range: TrendRange) => metrics.all(scopeOf(actor, environment), range),
    metricsSummary: (actor: OrgActor, environment: TEnvironment) => metrics.summary(scopeOf(actor, environment)),
    metricsTrend: (actor: OrgActor, environment: TEnvironment, range: TrendRange) => metrics.trend(scopeOf(actor, environment), range),
    metricsDistribution: (actor: OrgActor, environment: TEnvironment) => metrics.distribution(scopeOf(actor, environment)),

    /** Starts a run in the background and answers its audit; 409 while one is running in the environment. */
    async run(actor: OrgActor, environment: TEnvironment): Promise<ReflectionRunRecord> {
      requireManager(actor, "run reflection");
      return runner.start(scopeOf(actor, environment), "person", actor.label);
    },
  };
}

export type ReflectionService = ReturnType<typeof reflectionService>;
