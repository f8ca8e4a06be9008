import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "@engram/test-support";
import { openStore } from "../src/db/store";
import { ROWS_PER_SWEEP_STATEMENT } from "../src/domain/kernel/in-turns";
import { DEFAULT_LOGIN_THROTTLE, loginThrottle } from "../src/domain/people/login-throttle";
import { DEFAULT_SESSION_POLICY, sessionService } from "../src/domain/people/sessions";
import { RateLimiter } from "../src/domain/rate-limits/limiter";
import { rateLimitPolicy } from "../src/domain/rate-limits/policy";
import type { Store } from "../src/domain/store";
import { sweepExpiredKeys } from "../src/domain/writes/idempotency";
import type { KeyClaim } from "../src/domain/writes/ports";
import { countTurns } from "./event-loop-turns";

/**
 * The hourly sweeps of expired rows (idempotency keys, rate-limit counters, sessions, sign-in failure counts)
 * meet whatever piled up since the last: a day of keyed writes is millions of keys. Each deletes a bounded
 * number of rows a statement, with a turn of the event loop between, and keeps every row still current.
 */
let store: Store;
beforeAll(async () => {
  store = await openStore(await freshDatabase());
});
afterAll(() => store?.close());

/** Two full statements and one row more. */
const PILED_UP = 2 * ROWS_PER_SWEEP_STATEMENT + 1;
const now = new Date("2026-11-29T12:00:00.000Z");
const minute = Math.floor(now.getTime() / 60_000);

/** `deleteSome` with the rows each call deleted recorded in `calls`. */
function recorded<Args extends unknown[]>(calls: number[], deleteSome: (...args: Args) => Promise<number>) {
  return async (...args: Args) => {
    const deleted = await deleteSome(...args);
    calls.push(deleted);
    return deleted;
  };
}

describe("the sweeps of expired rows", () => {
  it("delete expired idempotency keys a statement's worth at a time, keeping the live ones", async () => {
    const scope = { orgId: "org_sweep", environment: "production" as const, route: "memory.encode" };
    const claim = (key: string): KeyClaim => ({ scope: { ...scope, key }, response: { requestHash: "h", status: 201, body: { key } } });
    const expired = Array.from({ length: PILED_UP }, (_, i) => `old-${i}`);
    await store.writeAtomically((batch) => batch.claimKeys(expired.map(claim), new Date("2026-11-27T12:00:00.000Z"), new Date("2026-11-28T12:00:00.000Z")));
    await store.writeAtomically((batch) => batch.claimKeys(["live-1", "live-2"].map(claim), now, new Date("2026-11-30T12:00:00.000Z")));

    const calls: number[] = [];
    const turns = countTurns();
    const deleted = await sweepExpiredKeys({ deleteExpired: recorded(calls, store.idempotency.deleteExpired) }, now);
    expect(turns.stop()).toBeGreaterThanOrEqual(2);
    expect(deleted).toBe(PILED_UP);
    expect(calls).toEqual([ROWS_PER_SWEEP_STATEMENT, ROWS_PER_SWEEP_STATEMENT, 1]);
    expect(await store.idempotency.findMany(scope, expired, now)).toEqual([]);
    expect((await store.idempotency.findMany(scope, ["live-1", "live-2"], now)).map((record) => record.key).sort()).toEqual(["live-1", "live-2"]);
  });

  it("delete rate-limit counters of past windows the same way, keeping the current and the last window's", async () => {
    const key = (i: number) => ({ orgId: `org_${i}`, environment: "production" as const, routeGroup: "memory" });
    for (let i = 0; i < PILED_UP; i++) await store.rateLimits.add(key(i), minute - 10, 1);
    await store.rateLimits.add(key(0), minute - 1, 5);
    await store.rateLimits.add(key(0), minute, 7);

    const calls: number[] = [];
    const repository = { ...store.rateLimits, deleteBefore: recorded(calls, store.rateLimits.deleteBefore) };
    const limiter = new RateLimiter(repository, rateLimitPolicy(), { clock: () => now });
    expect(await limiter.sweep()).toBe(PILED_UP);
    expect(calls).toEqual([ROWS_PER_SWEEP_STATEMENT, ROWS_PER_SWEEP_STATEMENT, 1]);
    // Adding nothing answers a counter's value: the two kept, the past one begun afresh.
    expect(await store.rateLimits.add(key(0), minute - 1, 0)).toBe(5);
    expect(await store.rateLimits.add(key(0), minute, 0)).toBe(7);
    expect(await store.rateLimits.add(key(1), minute - 10, 0)).toBe(0);
  });

  it("delete sign-in failure counts of past windows the same way, keeping the current window's", async () => {
    const windowSeconds = DEFAULT_LOGIN_THROTTLE.windowSeconds;
    const current = Math.floor(now.getTime() / 1000 / windowSeconds) * windowSeconds;
    const keys = Array.from({ length: PILED_UP }, (_, i) => `address:10.0.${i >> 8}.${i & 255}`);
    /** One failed password check under each key's window. */
    const fail = async (failing: string[], windowStart: number) => {
      for (const key of failing) {
        expect((await store.loginThrottle.claim(key, windowStart, 100)).claimed).toBe(true);
        await store.loginThrottle.settle([key], windowStart, true);
      }
    };
    /** The failures a key's window holds (read by a claim, taken back at once). */
    const failures = async (key: string, windowStart: number) => {
      const { failures: held } = await store.loginThrottle.claim(key, windowStart, 100);
      await store.loginThrottle.settle([key], windowStart, false);
      return held;
    };
    await fail(keys, current - 2 * windowSeconds);
    await fail(["address:10.9.9.9"], current);

    const calls: number[] = [];
    const throttle = loginThrottle({ ...store.loginThrottle, deleteBefore: recorded(calls, store.loginThrottle.deleteBefore) }, DEFAULT_LOGIN_THROTTLE, () => now);
    expect(await throttle.sweep()).toBe(PILED_UP);
    expect(calls).toEqual([ROWS_PER_SWEEP_STATEMENT, ROWS_PER_SWEEP_STATEMENT, 1]);
    // The current window's failure is kept; the past windows' counts begin afresh.
    expect(await failures("address:10.9.9.9", current)).toBe(1);
    expect(await failures(keys[0]!, current - 2 * windowSeconds)).toBe(0);
    expect(await failures(keys.at(-1)!, current - 2 * windowSeconds)).toBe(0);
  });

  it("delete ended sessions the same way, keeping the live ones", async () => {
    const user = await store.users.create({ email: "sweep@example.com", displayName: "Sweep", passwordHash: "x", at: now });
    const session = (i: number, expiresAt: Date) => ({ secretHash: `hash-${i}`, userId: user.id, activeOrgId: null, csrfToken: "c", createdAt: new Date("2026-11-20T12:00:00.000Z"), expiresAt });
    for (let i = 0; i < PILED_UP; i++) await store.sessions.create(session(i, new Date("2026-11-27T12:00:00.000Z")));
    const live = await store.sessions.create({ ...session(-1, new Date("2026-12-05T12:00:00.000Z")), createdAt: now });

    const calls: number[] = [];
    const sessionStore = { ...store, sessions: { ...store.sessions, deleteExpired: recorded(calls, store.sessions.deleteExpired) } };
    await sessionService(sessionStore, { clock: () => now, policy: DEFAULT_SESSION_POLICY }).sweep();
    expect(calls).toEqual([ROWS_PER_SWEEP_STATEMENT, ROWS_PER_SWEEP_STATEMENT, 1]);
    expect(await store.sessions.deleteForUser(user.id)).toBe(1);
    expect(live.userId).toBe(user.id);
  });
});
