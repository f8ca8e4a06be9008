import { DEFAULT_SESSION_POLICY, type SessionPolicy } from "./domain/people/sessions";
import { SettingError } from "./domain/kernel/errors";
import { wholeNumberSetting } from "./settings";

/** How the session-backed `/api` routes behave: session lifetimes, the cookie, and which origins may change things. */
export interface ApplicationConfig {
  sessions: SessionPolicy;
  /** `auto`: Secure except on plain HTTP to a loopback host (local development). */
  cookieSecure: "auto" | "always" | "never";
  /** Origins allowed on unsafe requests; null: the origin whose host is the request's Host. */
  allowedOrigins: string[] | null;
  /** The first owner made on an empty database. */
  admin: { email: string; password: string | null };
}

/** A session lasts at most a year, idle or not: a longer setting is surely a mistake, and a far longer one no date. */
const MINUTES_A_YEAR = 525_600;
const HOURS_A_YEAR = 8_760;

export function applicationConfigFrom(env: NodeJS.ProcessEnv): ApplicationConfig {
  const cookieSecure = env.ENGRAM_COOKIE_SECURE ?? "auto";
  if (cookieSecure !== "auto" && cookieSecure !== "always" && cookieSecure !== "never") {
    throw new SettingError(`ENGRAM_COOKIE_SECURE must be auto, always or never, got "${cookieSecure}"`);
  }
  const origins = (env.ENGRAM_APP_ORIGINS ?? "").split(",").map((origin) => origin.trim()).filter(Boolean);
  for (const origin of origins) {
    if (!URL.canParse(origin) || new URL(origin).origin !== origin) throw new SettingError(`ENGRAM_APP_ORIGINS: "${origin}" is not an origin like https://engram.example.com`);
  }
  return {
    sessions: {
      idleMs: wholeNumberSetting(env, "ENGRAM_SESSION_IDLE_MINUTES", DEFAULT_SESSION_POLICY.idleMs / 60_000, { min: 1, max: MINUTES_A_YEAR, unit: "minutes" }) * 60_000,
      absoluteMs: wholeNumberSetting(env, "ENGRAM_SESSION_MAX_HOURS", DEFAULT_SESSION_POLICY.absoluteMs / 3_600_000, { min: 1, max: HOURS_A_YEAR, unit: "hours" }) * 3_600_000,
      maxPerPerson: DEFAULT_SESSION_POLICY.maxPerPerson,
      throttle: DEFAULT_SESSION_POLICY.throttle,
    },
    cookieSecure,
    allowedOrigins: origins.length ? origins : null,
    admin: { email: env.ENGRAM_ADMIN_EMAIL || "admin@localhost", password: env.ENGRAM_ADMIN_PASSWORD || null },
  };
}

export const defaultApplicationConfig: ApplicationConfig = applicationConfigFrom({});
