import { setImmediate as nextImmediate } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { backgroundPauses, type TurnTiming } from "../src/domain/kernel/background-turns";

/** Holds the event loop for `ms`, as a step of work does. */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe("background pauses", () => {
  /** A clock the script moves: each turn takes what others ran in it, each wait what it asked for. */
  function scripted(othersPerTurn: number[]) {
    let now = 0;
    const waits: number[] = [];
    const timing: TurnTiming = {
      now: () => now,
      turn: async () => void (now += othersPerTurn.shift() ?? 0),
      wait: async (ms) => void (waits.push(ms), (now += ms)),
    };
    return { timing, waits, work: (ms: number) => void (now += ms) };
  }

  it("go on at once when nothing else used the turn, and otherwise wait until the step is a quarter of the time", async () => {
    const { timing, waits, work } = scripted([0.2, 4, 0.5]);
    const pause = backgroundPauses(0.25, { timing });
    work(10);
    await pause(); // the loop was idle
    work(10);
    await pause(); // others ran 4 ms: the step's 10 ms are a quarter of 40
    work(3);
    await pause(); // idle again: the wait before does not count as work
    expect(waits).toEqual([26]);
  });

  it("count a step's waits off the loop (for the database) as others' time, not the step's work", async () => {
    const { timing, waits, work } = scripted([4, 4]);
    const database = { waited: 0, time: <T,>(waiting: Promise<T>) => waiting };
    const pause = backgroundPauses(0.25, { timing, waits: database });
    work(10);
    database.waited += 8;
    await pause(); // the step held the loop 2 ms of its 10: a quarter of 8, of which others ran 4
    work(10);
    await pause(); // no waits this time: 10 ms are a quarter of 40
    expect(waits).toEqual([2, 26]);
  });

  it("never wait longer than a quarter of a second, however long the step", async () => {
    const { timing, waits, work } = scripted([5]);
    const pause = backgroundPauses(0.25, { timing });
    work(400);
    await pause();
    expect(waits).toEqual([250]);
  });

  it("keep background work to about its share of a loop that others keep busy", async () => {
    let foreground = 0;
    let background = 0;
    let running = true;
    // Others: a step of 2 ms every turn, as requests keep a loop busy.
    const others = (async () => {
      while (running) {
        spin(2);
        foreground += 2;
        await nextImmediate();
      }
    })();
    const pause = backgroundPauses(0.25);
    const end = performance.now() + 1_000;
    while (performance.now() < end) {
      spin(3);
      background += 3;
      await pause();
    }
    running = false;
    await others;
    // A turn each way would give the background 3 ms of every 5.
    const share = background / (background + foreground);
    expect(share).toBeGreaterThan(0.1);
    expect(share).toBeLessThan(0.4);
  });
});
