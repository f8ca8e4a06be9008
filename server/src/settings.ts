import { SettingError } from "./domain/kernel/errors";

/** The longest delay Node's timers take (2^31 - 1 ms, about 24.8 days); a longer one fires at once, again and again. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * A whole number from `min` to `max`, written in decimal digits: `Number()` alone would also take a sign, an
 * exponent, hexadecimal and blanks (`" "` as 0).
 */
export function wholeNumberSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, range: { min: number; max: number; unit?: string }): number {
  const value = env[name];
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < range.min || Number(value) > range.max) {
    throw new SettingError(`${name} must be a whole number${range.unit ? ` of ${range.unit}` : ""} from ${range.min} to ${range.max}, got "${value}"`);
  }
  return Number(value);
}

/** A decimal number from `min` to `max` (such as -0.5 or 0.35), written in digits. */
export function decimalSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, range: { min: number; max: number }): number {
  const value = env[name];
  if (value === undefined) return fallback;
  if (!/^-?(\d+(\.\d*)?|\.\d+)$/.test(value) || Number(value) < range.min || Number(value) > range.max) {
    throw new SettingError(`${name} must be a number from ${range.min} to ${range.max}, got "${value}"`);
  }
  return Number(value);
}

/** An http(s) URL, as the OpenAI-compatible APIs are reached. */
export function httpUrlSetting(env: NodeJS.ProcessEnv, name: string): string | null {
  const value = env[name]?.trim();
  if (!value) return null;
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) throw new SettingError(`${name} must be an http(s) URL, got "${value}"`);
  return value;
}
