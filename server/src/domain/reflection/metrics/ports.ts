import type { TMemoryKind, TMemoryState } from "@engram/contract";
import type { ReflectionScope } from "../records";

/** Memories of one state and kind, with the sums the summary's averages and flags are made of. */
export interface MemoryGroup {
  state: TMemoryState;
  memoryKind: TMemoryKind;
  count: number;
  confidenceSum: number;
  /** Memories with a stored activation snapshot, and the sum of those snapshots. */
  activationCount: number;
  activationSum: number;
  stale: number;
  superseded: number;
  duplicates: number;
}

/** Interior bucket edges, ascending: a value falls in the bucket after the last edge it reaches. */
export interface HistogramEdges {
  activation: readonly number[];
  confidence: readonly number[];
  /** Created at or before each of these times (newest first): older than each age edge. */
  createdBy: readonly Date[];
}

/** Durable memories counted per bucket; an activation bucket of -1 counts those without a snapshot. */
export interface BucketCount {
  activation: number;
  confidence: number;
  age: number;
  count: number;
}

/** A per-day count: the day is YYYY-MM-DD in UTC. */
export interface DayCount {
  day: string;
  key: string;
  count: number;
}

/** Aggregates over one organization's environment, computed by the database (never row by row here). */
export interface ReflectionMetricsRepository {
  memoryGroups(scope: ReflectionScope): Promise<MemoryGroup[]>;
  durableBuckets(scope: ReflectionScope, edges: HistogramEdges): Promise<BucketCount[]>;
  /**
   * History entries of these actions per day and action, over memories of the scope, from `from` through
   * `through` (both included: the range may end at the last instant storable, 9999-12-31T23:59:59.999).
   */
  historyByDay(scope: ReflectionScope, actions: readonly string[], from: Date, through: Date): Promise<DayCount[]>;
  /** Reflection events per day (key "events"), from `from` through `through`. */
  eventsByDay(scope: ReflectionScope, from: Date, through: Date): Promise<DayCount[]>;
  /** Developer events received per day (key "developerEvents"), from `from` through `through`. */
  developerEventsByDay(scope: ReflectionScope, from: Date, through: Date): Promise<DayCount[]>;
}

export interface UsageIncrement {
  orgId: string;
  environment: ReflectionScope["environment"];
  day: string;
  metric: "retrievals";
  count: number;
}

/** Per-day usage counters that memory history does not record. */
export interface DailyUsageRepository {
  /** Adds each increment to its day's counter in one statement (creating the counter at first use). */
  add(increments: readonly UsageIncrement[]): Promise<void>;
  /** The metric's counters of the scope for the days fromDay..toDay, both included (key: the metric). */
  byDay(scope: ReflectionScope, metric: UsageIncrement["metric"], fromDay: string, toDay: string): Promise<DayCount[]>;
}
