import { type TMemoryKind, type TMemoryState, ZMemoryKind, ZMemoryState } from "@engram/contract";
import type { Clock } from "../../kernel/clock";
import { AppError } from "../../kernel/errors";
import { storableTime } from "../../kernel/storable-time";
import type { ReflectionScope } from "../records";
import type { DailyUsageRepository, ReflectionMetricsRepository } from "./ports";

const DAY_MS = 86_400_000;
export const DEFAULT_TREND_DAYS = 30;
export const MAX_TREND_DAYS = 366;

/** Whole-unit buckets over -5..5 (base-level activation rarely leaves it); values beyond fold into the ends. */
const ACTIVATION_BUCKETS = Array.from({ length: 10 }, (_, i) => ({ from: i - 5, to: i - 4 }));
/** Tenths of 0..1; a confidence of exactly 1 counts in the last. */
const CONFIDENCE_BUCKETS = Array.from({ length: 10 }, (_, i) => ({ from: i / 10, to: (i + 1) / 10 }));
/** Age in days; the last bucket is open-ended (`to` null). */
const AGE_BUCKETS: Array<{ from: number; to: number | null }> = [
  { from: 0, to: 1 },
  { from: 1, to: 7 },
  { from: 7, to: 30 },
  { from: 30, to: 90 },
  { from: 90, to: 365 },
  { from: 365, to: null },
];

/** Which history action each trend series counts. */
const TREND_HISTORY = { created: "encodes", reinforced: "reinforcements", suppressed: "suppressions", promoted: "promotions" } as const;

const zeros = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((key) => [key, 0])) as Record<K, number>;
const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/** A YYYY-MM-DD that names a real day, as the start of that day in UTC. */
function parseDay(day: string, field: string): Date {
  const at = new Date(`${day}T00:00:00.000Z`);
  if (Number.isNaN(at.getTime()) || dayOf(at) !== day) throw new AppError("invalid_parameter", `${field}: ${day} is not a day of the calendar.`, field);
  return storableTime(at, field);
}

type TrendDay = { day: string; encodes: number; retrievals: number; reinforcements: number; suppressions: number; promotions: number; reflectionActions: number; events: number };

export interface TrendRange {
  from?: string;
  to?: string;
}

/**
 * What memory looks like in one organization's environment: counts, averages, a per-day trend and
 * histograms, each from a few aggregate queries.
 */
export function metricsService(repositories: { metrics: ReflectionMetricsRepository; usage: DailyUsageRepository }, { clock }: { clock: Clock }) {
  const { metrics, usage } = repositories;

  async function summary(scope: ReflectionScope) {
    const groups = await metrics.memoryGroups(scope);
    const byState = zeros<TMemoryState>(ZMemoryState.options);
    const byKind = zeros<TMemoryKind>(ZMemoryKind.options);
    const flagged = { stale: 0, superseded: 0, duplicates: 0 };
    const durable = { count: 0, confidenceSum: 0, activationCount: 0, activationSum: 0 };
    for (const group of groups) {
      byState[group.state] = (byState[group.state] ?? 0) + group.count;
      byKind[group.memoryKind] = (byKind[group.memoryKind] ?? 0) + group.count;
      flagged.stale += group.stale;
      flagged.superseded += group.superseded;
      flagged.duplicates += group.duplicates;
      if (group.state !== "durable") continue;
      durable.count += group.count;
      durable.confidenceSum += group.confidenceSum;
      durable.activationCount += group.activationCount;
      durable.activationSum += group.activationSum;
    }
    return {
      environment: scope.environment,
      total: groups.reduce((total, group) => total + group.count, 0),
      byState,
      byKind,
      averageActivation: durable.activationCount === 0 ? null : durable.activationSum / durable.activationCount,
      averageConfidence: durable.count === 0 ? null : durable.confidenceSum / durable.count,
      flagged,
    };
  }

  /** The days from..to (both included), the last 30 days by default, at most 366. */
  function range({ from, to }: TrendRange): { first: Date; last: Date } {
    const last = to ? parseDay(to, "to") : parseDay(dayOf(clock()), "to");
    // A default window that would start before year 1 is refused like an explicit one.
    const first = storableTime(from ? parseDay(from, "from") : new Date(last.getTime() - (DEFAULT_TREND_DAYS - 1) * DAY_MS), "from");
    if (first > last) throw new AppError("invalid_parameter", `from: ${dayOf(first)} is after to (${dayOf(last)}).`, "from");
    const days = (last.getTime() - first.getTime()) / DAY_MS + 1;
    if (days > MAX_TREND_DAYS) throw new AppError("invalid_parameter", `from: the range spans ${days} days; at most ${MAX_TREND_DAYS} are shown at once.`, "from");
    return { first, last };
  }

  async function trend(scope: ReflectionScope, input: TrendRange) {
    const { first, last } = range(input);
    // The last day's last millisecond (timestamps are kept to the millisecond): the day after 9999-12-31 is not
    // a time either backend stores.
    const through = new Date(last.getTime() + DAY_MS - 1);
    const [history, events, developerEvents, retrievals] = await Promise.all([
      metrics.historyByDay(scope, Object.keys(TREND_HISTORY), first, through),
      metrics.eventsByDay(scope, first, through),
      metrics.developerEventsByDay(scope, first, through),
      usage.byDay(scope, "retrievals", dayOf(first), dayOf(last)),
    ]);
    const days = new Map<string, TrendDay>();
    for (let at = first.getTime(); at <= last.getTime(); at += DAY_MS) {
      const day = dayOf(new Date(at));
      days.set(day, { day, encodes: 0, retrievals: 0, reinforcements: 0, suppressions: 0, promotions: 0, reflectionActions: 0, events: 0 });
    }
    for (const { day, key, count } of history) {
      const entry = days.get(day);
      const series = TREND_HISTORY[key as keyof typeof TREND_HISTORY];
      if (entry && series) entry[series] += count;
    }
    for (const { day, count } of events) {
      const entry = days.get(day);
      if (entry) entry.reflectionActions += count;
    }
    for (const { day, count } of developerEvents) {
      const entry = days.get(day);
      if (entry) entry.events += count;
    }
    for (const { day, count } of retrievals) {
      const entry = days.get(day);
      if (entry) entry.retrievals += count;
    }
    return { environment: scope.environment, from: dayOf(first), to: dayOf(last), days: [...days.values()] };
  }

  async function distribution(scope: ReflectionScope) {
    const now = clock();
    const buckets = await metrics.durableBuckets(scope, {
      activation: ACTIVATION_BUCKETS.slice(1).map((bucket) => bucket.from),
      confidence: CONFIDENCE_BUCKETS.slice(1).map((bucket) => bucket.from),
      createdBy: AGE_BUCKETS.slice(1).map((bucket) => new Date(now.getTime() - bucket.from * DAY_MS)),
    });
    const activation = ACTIVATION_BUCKETS.map((bucket) => ({ ...bucket, count: 0 }));
    const confidence = CONFIDENCE_BUCKETS.map((bucket) => ({ ...bucket, count: 0 }));
    const ageDays = AGE_BUCKETS.map((bucket) => ({ ...bucket, count: 0 }));
    for (const bucket of buckets) {
      // Memories without an activation snapshot yet are left out of its histogram only.
      if (bucket.activation >= 0) activation[bucket.activation]!.count += bucket.count;
      confidence[bucket.confidence]!.count += bucket.count;
      ageDays[bucket.age]!.count += bucket.count;
    }
    return { environment: scope.environment, activation, confidence, ageDays };
  }

  return {
    summary,
    trend,
    distribution,
    async all(scope: ReflectionScope, input: TrendRange) {
      range(input); // a bad range is refused before anything is read
      const [s, t, d] = await Promise.all([summary(scope), trend(scope, input), distribution(scope)]);
      return { summary: s, trend: t, distribution: d };
    },
  };
}

export type MetricsService = ReturnType<typeof metricsService>;
