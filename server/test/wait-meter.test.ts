import { describe, expect, it } from "vitest";
import { waitMeter } from "../src/domain/kernel/wait-meter";

function deferred() {
  let settle!: { resolve(): void; reject(error: Error): void };
  const promise = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  return { promise, ...settle };
}

describe("a wait meter", () => {
  it("counts the time until each wait settles, waits that overlap once, and what is still waiting so far", async () => {
    let now = 0;
    const meter = waitMeter(() => now);
    const [first, second] = [deferred(), deferred()];
    const waitingFirst = meter.time(first.promise);
    now = 10;
    const waitingSecond = meter.time(second.promise);
    now = 15;
    expect(meter.waited).toBe(15);
    first.resolve();
    await waitingFirst;
    now = 20;
    second.reject(new Error("the database went away"));
    await expect(waitingSecond).rejects.toThrow("the database went away");
    now = 30; // nothing waits: time passing is work
    expect(meter.waited).toBe(20);
    const third = deferred();
    const waitingThird = meter.time(third.promise);
    now = 34;
    third.resolve();
    await waitingThird;
    expect(meter.waited).toBe(24);
  });

  it("answers what it timed", async () => {
    expect(await waitMeter().time(Promise.resolve(42))).toBe(42);
  });
});
