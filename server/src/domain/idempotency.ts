import { createHash } from "node:crypto";
import { AppError, DuplicateKeyError } from "./errors";
import type { IdempotencyKeyScope, Repositories, Store } from "./ports";

/** How long a key is remembered (DESIGN.md). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface WriteResult<TBody> {
  status: number;
  body: TBody;
}

export interface IdempotentResult<TBody> extends WriteResult<TBody> {
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

/**
 * Runs a write at most once per idempotency key. The write and the stored response commit in one
 * transaction; a concurrent duplicate loses on the key's unique constraint, and its retry finds the
 * winner's response to replay.
 */
export async function runIdempotent<TBody>(
  store: Store,
  key: IdempotencyKeyScope | null,
  hash: string,
  write: (tx: Repositories) => Promise<WriteResult<TBody>>,
): Promise<IdempotentResult<TBody>> {
  if (key === null) return { ...(await store.transaction(write)), replayed: false };
  for (let attempt = 1; ; attempt++) {
    try {
      return await store.transaction(async (tx) => {
        const now = new Date();
        const prior = await tx.idempotency.find(key, now);
        if (prior) {
          if (prior.requestHash !== hash) {
            throw new AppError(
              "idempotency_key_reused",
              "This Idempotency-Key was already used with a different request; use a new key for a new request.",
              "Idempotency-Key",
            );
          }
          return { status: prior.status, body: prior.body as TBody, replayed: true };
        }
        const result = await write(tx);
        await tx.idempotency.save(key, { requestHash: hash, ...result }, now, new Date(now.getTime() + IDEMPOTENCY_TTL_MS));
        return { ...result, replayed: false };
      });
    } catch (error) {
      if (error instanceof DuplicateKeyError && attempt < 3) continue;
      throw error;
    }
  }
}
