import { AppError } from "./errors";

/** The earliest and latest instants both backends store and compare: years 1 to 9999 (Postgres has no year 0). */
const FIRST_INSTANT = new Date("0001-01-01T00:00:00.000Z").getTime();
const LAST_INSTANT = new Date("9999-12-31T23:59:59.999Z").getTime();

/** A time from a request, refused with `invalid_parameter` naming `field` when no backend could compare it. */
export function storableTime(at: Date, field: string): Date {
  const time = at.getTime();
  if (Number.isNaN(time) || time < FIRST_INSTANT || time > LAST_INSTANT) {
    throw new AppError("invalid_parameter", `${field}: times from year 1 to 9999 only.`, field);
  }
  return at;
}
