import { describe, expect, it } from "vitest";
import { BatchQueue } from "../src/domain/writes/batch-queue";
import { countTurns } from "./event-loop-turns";

describe("BatchQueue", () => {
  it("puts work submitted together, or during a running batch, into shared batches", async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const firstBatchHeld = new Promise<void>((resolve) => (release = resolve));
    const queue = new BatchQueue<number, number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await firstBatchHeld;
      return items.map((n) => n * 10);
    });

    const first = [1, 2, 3].map((n) => queue.submit(n));
    await new Promise((resolve) => setImmediate(resolve));
    const later = [4, 5].map((n) => queue.submit(n));
    release();
    expect(await Promise.all([...first, ...later])).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([[1, 2, 3], [4, 5]]);
  });

  it("answers each item with its own error", async () => {
    const queue = new BatchQueue<number, number>(async (items) => items.map((n) => (n % 2 ? n : new Error(`even ${n}`))));
    const results = await Promise.allSettled([1, 2, 3].map((n) => queue.submit(n)));
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([1, "even 2", 3]);
  });

  it("retries a failed batch item by item so one bad item fails alone", async () => {
    const seen: number[][] = [];
    const queue = new BatchQueue<number, number>(async (items) => {
      seen.push(items);
      if (items.includes(13)) throw new Error("poison");
      return items;
    });
    const results = await Promise.allSettled([12, 13, 14].map((n) => queue.submit(n)));
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(seen).toEqual([[12, 13, 14], [12], [13], [14]]);
  });

  it("caps the batch size", async () => {
    const sizes: number[] = [];
    const queue = new BatchQueue<number, number>(async (items) => {
      sizes.push(items.length);
      return items;
    }, { maxItems: 4 });
    await Promise.all(Array.from({ length: 10 }, (_, i) => queue.submit(i)));
    expect(sizes).toEqual([4, 4, 2]);
  });

  it("caps a batch's weight, but takes an item heavier than the cap alone rather than never", async () => {
    const batches: number[][] = [];
    const queue = new BatchQueue<number, number>(
      async (items) => {
        batches.push(items);
        return items;
      },
      { weigh: (n) => n, maxWeight: 10 },
    );
    await Promise.all([4, 5, 1, 3, 25, 2, 10, 1].map((n) => queue.submit(n)));
    expect(batches).toEqual([[4, 5, 1], [3], [25], [2], [10], [1]]);
  });

  it("gives the event loop a turn between batches, even when each is written without one", async () => {
    let batches = 0;
    const queue = new BatchQueue<number, number>(async (items) => (batches++, items), { maxItems: 2 });
    const turns = countTurns();
    await Promise.all(Array.from({ length: 20 }, (_, i) => queue.submit(i)));
    expect(batches).toBe(10);
    expect(turns.stop()).toBeGreaterThanOrEqual(10);
  });
});
