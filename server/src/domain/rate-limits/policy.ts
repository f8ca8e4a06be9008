import { type TEnvironment, ZEnvironment } from "@engram/contract";
import { type Plan, plans } from "../access/records";
import { SettingError } from "../kernel/errors";

/**
 * Route groups are counted separately: memory reads and writes, event ingestion, the inference gateway, and
 * the session-backed routes: assistants and their capabilities, and the rest of the application's.
 */
export const routeGroups = ["memory", "events", "inference", "capabilities", "application"] as const;
export type RouteGroup = (typeof routeGroups)[number];

/** Fixed windows of this length, aligned to the clock's minutes so every process agrees on them. */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

/**
 * Requests per 60 s window, per organization and route group, in Production. Memory and events are
 * sized for machine use (CI, incident tooling, assistants recalling per message); inference is sized for
 * chat traffic. The capabilities figures from Spark up are the published ones (Free's is ours); the application
 * group serves people at a console. Boost and above are contract-specific: its figures are a starting point.
 */
export const DEFAULT_RATE_LIMITS: Readonly<Record<Plan, Readonly<Record<RouteGroup, number>>>> = {
  free: { memory: 600, events: 600, inference: 60, capabilities: 30, application: 120 },
  spark: { memory: 1_200, events: 1_200, inference: 300, capabilities: 60, application: 300 },
  seed: { memory: 3_000, events: 3_000, inference: 1_000, capabilities: 200, application: 600 },
  rise: { memory: 6_000, events: 6_000, inference: 2_000, capabilities: 200, application: 600 },
  boost: { memory: 30_000, events: 30_000, inference: 10_000, capabilities: 1_000, application: 3_000 },
};

/**
 * Test and Staging have their own counters and, by default, half of Production's figures (at least one
 * request): they are for trying things, and must never eat into Production's capacity.
 */
export const DEFAULT_ENVIRONMENT_SHARE: Readonly<Record<TEnvironment, number>> = { production: 1, staging: 0.5, test: 0.5 };

/**
 * One override from ENGRAM_RATE_LIMITS: `plan.group=N` sets the Production figure (Test and Staging get
 * their share of it), `plan.group.environment=N` sets one environment's figure exactly; `*` matches any.
 */
export interface RateLimitOverride {
  plan: Plan | "*";
  group: RouteGroup | "*";
  environment: TEnvironment | "*" | null;
  limit: number;
}

export interface RateLimitPolicy {
  /** Requests allowed per window; null when rate limiting is off. */
  limitFor(plan: Plan, environment: TEnvironment, group: RouteGroup): number | null;
}

const environments = ZEnvironment.options;

/** Parses ENGRAM_RATE_LIMITS: `off`, or comma-separated overrides applied in order (later ones win). */
export function parseRateLimitSetting(text: string | undefined): RateLimitOverride[] | "off" {
  const trimmed = (text ?? "").trim();
  if (trimmed === "") return [];
  if (trimmed === "off") return "off";
  return trimmed.split(",").map((entry) => {
    const match = entry.trim().match(/^([a-z*]+)\.([a-z*]+)(?:\.([a-z*]+))?\s*=\s*(\d+)$/);
    const [, plan, group, environment, limit] = match ?? [];
    const known = <T extends string>(value: string | undefined, allowed: readonly T[]): value is T | "*" => value === "*" || allowed.includes(value as T);
    if (!match || !known(plan, plans) || !known(group, routeGroups) || (environment !== undefined && !known(environment, environments))) {
      throw new SettingError(
        `ENGRAM_RATE_LIMITS: cannot read "${entry.trim()}"; write plan.group[.environment]=N with plan ${plans.join("|")}, ` +
          `group ${routeGroups.join("|")}, environment ${environments.join("|")}, or * for any`,
      );
    }
    return { plan, group, environment: environment ?? null, limit: Number(limit) } as RateLimitOverride;
  });
}

/** The documented defaults with the given overrides, or no limits at all for `off`. */
export function rateLimitPolicy(setting: RateLimitOverride[] | "off" = []): RateLimitPolicy {
  if (setting === "off") return { limitFor: () => null };
  const table = new Map<string, number>();
  for (const plan of plans) {
    for (const group of routeGroups) {
      let production = DEFAULT_RATE_LIMITS[plan][group];
      const exact: Partial<Record<TEnvironment, number>> = {};
      for (const override of setting) {
        if ((override.plan !== "*" && override.plan !== plan) || (override.group !== "*" && override.group !== group)) continue;
        if (override.environment === null) {
          production = override.limit;
          for (const environment of environments) delete exact[environment];
        } else {
          for (const environment of environments) if (override.environment === "*" || override.environment === environment) exact[environment] = override.limit;
        }
      }
      for (const environment of environments) {
        const share = Math.max(1, Math.floor(production * DEFAULT_ENVIRONMENT_SHARE[environment]));
        table.set(`${plan}.${group}.${environment}`, exact[environment] ?? (production === 0 ? 0 : share));
      }
    }
  }
  return { limitFor: (plan, environment, group) => table.get(`${plan}.${group}.${environment}`) ?? null };
}
