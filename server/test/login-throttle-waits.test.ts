import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "@engram/test-support";
import { openStore } from "../src/db/store";
import { AppError } from "../src/domain/kernel/errors";
import { type LoginThrottlePolicy, loginThrottle } from "../src/domain/people/login-throttle";
import type { Store } from "../src/domain/store";

/**
 * What an attempt does when the room under a limit is taken by password checks still in flight: it waits for
 * them, up to the policy's wait, and is refused "at once" after it. Driven through the real repository, with
 * password checks the test holds open and lets end, so the overlap is certain on a busy machine too.
 */
let store: Store;
beforeAll(async () => {
  store = await openStore(await freshDatabase());
});
afterAll(() => store?.close());

const windowStart = new Date("2026-12-02T09:00:00.000Z").getTime();
// Each test takes a window of its own: counts are shared through the database.
let windows = 0;
function throttleFor(policy: Partial<LoginThrottlePolicy>) {
  const now = new Date(windowStart + windows++ * 3_600_000 + 15_000);
  return loginThrottle(store.loginThrottle, { windowSeconds: 3_600, perAccount: 1, perAddress: 10, maxWaitMs: 5_000, ...policy }, () => now);
}

/** A password check that ends when the test says, with the result it is given. */
function heldCheck<T>() {
  let end!: (result: T | null) => void;
  const ended = new Promise<T | null>((resolve) => (end = resolve));
  let started = false;
  return {
    check: () => {
      started = true;
      return ended;
    },
    end,
    get started() {
      return started;
    },
  };
}

async function refusal(attempt: Promise<unknown>): Promise<AppError> {
  const error = await attempt.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("an attempt behind checks in flight", () => {
  it("waits for the check ahead of it and then has its own password checked", async () => {
    const throttle = throttleFor({});
    const first = heldCheck<string>();
    const second = heldCheck<string>();
    const firstAttempt = throttle.guard("ada@example.com", "10.0.0.1", first.check);
    await expect.poll(() => first.started, { timeout: 10_000 }).toBe(true);
    const secondAttempt = throttle.guard("ada@example.com", "10.0.0.1", second.check);

    // The only room on the account is the first check's: the second looks again and again, checking nothing.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(second.started).toBe(false);

    first.end("session-1");
    expect(await firstAttempt).toBe("session-1");
    await expect.poll(() => second.started, { timeout: 10_000 }).toBe(true);
    second.end("session-2");
    expect(await secondAttempt).toBe("session-2");
  });

  it("is refused 'at once' after the policy's wait, checks no password and counts no failure", async () => {
    const throttle = throttleFor({ maxWaitMs: 50 });
    const first = heldCheck<string>();
    const firstAttempt = throttle.guard("grace@example.com", "10.0.0.2", first.check);
    await expect.poll(() => first.started, { timeout: 10_000 }).toBe(true);

    const waiter = heldCheck<string>();
    const error = await refusal(throttle.guard("grace@example.com", "10.0.0.2", waiter.check));
    expect(error.code).toBe("login_throttled");
    expect(error.message).toBe("Too many sign-ins at once; try again in 1 s.");
    expect(error.retryAfter).toBe(1);
    expect(waiter.started).toBe(false);

    first.end("session-1");
    expect(await firstAttempt).toBe("session-1");
    // The refused attempt left no failure behind: the account's one allowed failure is still there to spend.
    expect(await throttle.guard("grace@example.com", "10.0.0.2", async () => null)).toBeNull();
    const locked = await refusal(throttle.guard("grace@example.com", "10.0.0.2", async () => "never checked"));
    expect(locked.message).toMatch(/^Too many failed sign-ins; try again in \d+ s\.$/);
  });

  it("gives back the account's claim when the address's claim fails", async () => {
    let failAddressClaims = 1;
    const repository = {
      ...store.loginThrottle,
      claim: async (key: string, windowStart: number, limit: number) => {
        if (key.startsWith("address:") && failAddressClaims-- > 0) throw new Error("database unavailable");
        return store.loginThrottle.claim(key, windowStart, limit);
      },
    };
    const now = new Date(windowStart + windows++ * 3_600_000 + 15_000);
    const throttle = loginThrottle(repository, { windowSeconds: 3_600, perAccount: 1, perAddress: 10, maxWaitMs: 50 }, () => now);
    await expect(throttle.guard("edsger@example.com", "10.0.0.4", async () => "never checked")).rejects.toThrow("database unavailable");
    // Were the account's claim still in flight, this attempt would wait for it and be refused.
    expect(await throttle.guard("edsger@example.com", "10.0.0.4", async () => "session")).toBe("session");
  });

  it("gets the room back from a check that threw, as no failure", async () => {
    const throttle = throttleFor({ maxWaitMs: 50 });
    await expect(
      throttle.guard("alan@example.com", "10.0.0.3", async () => {
        throw new Error("database unavailable");
      }),
    ).rejects.toThrow("database unavailable");
    expect(await throttle.guard("alan@example.com", "10.0.0.3", async () => "session")).toBe("session");
  });
});
