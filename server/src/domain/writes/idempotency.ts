import { createHash } from "node:crypto";
import { deleteInStatements } from "../kernel/in-turns";
import type { IdempotencyRepository } from "./ports";

/** How long a request key (encode) is remembered; an event's key lasts as long as the event. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface IdempotentResult<TBody> {
  status: number;
  body: TBody;
  /** True when this answer repeats the one stored under the request's idempotency key. */
  replayed: boolean;
}

/** A stable hash of a request: object keys sorted, so key order never changes it. */
export function requestHash(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Deletes the records of every key expired by `now` (the keys are free again), a statement's worth at a time. */
export function sweepExpiredKeys(keys: Pick<IdempotencyRepository, "deleteExpired">, now: Date): Promise<number> {
  return deleteInStatements((limit) => keys.deleteExpired(now, limit));
}
