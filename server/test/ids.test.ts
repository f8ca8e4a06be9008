import { describe, expect, it } from "vitest";
import { newId } from "../src/domain/kernel/ids";

/**
 * Ids grow with time, so rows keyed by them are appended to their key's B-tree rather than written on a
 * random page (docs/performance.md, item 28), and they keep the documented shape: a prefix and 32 hex digits.
 */
describe("newId", () => {
  it("is the prefix and the 32 hex digits of a version 7 UUID", () => {
    const id = newId("mem");
    expect(id).toMatch(/^mem_[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
  });

  it("orders ids made one after another as they were made, within a millisecond too", () => {
    const ids = Array.from({ length: 10_000 }, () => newId("mhe"));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id, i) => i === 0 || ids[i - 1]! < id)).toBe(true);
  });

  it("draws fresh random bits for every id, across many refills of its pool of random bytes", () => {
    const tails = Array.from({ length: 5_000 }, () => newId("mem").slice(-12));
    expect(new Set(tails).size).toBe(tails.length);
  });

  it("begins with its time of creation in milliseconds", () => {
    const before = Date.now();
    const id = newId("evt");
    const after = Date.now();
    const millis = Number.parseInt(id.slice("evt_".length, "evt_".length + 12), 16);
    expect(millis).toBeGreaterThanOrEqual(before);
    expect(millis).toBeLessThanOrEqual(after);
  });
});
