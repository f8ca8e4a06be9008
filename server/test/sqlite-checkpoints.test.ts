import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { databaseUnderTest, freshDatabase, temporaryDirectory } from "@engram/test-support";
import { arrangeCheckpoints, BACKSTOP_CHECKPOINT_PAGES, CHECKPOINT_EVERY_MS, type CheckpointEvents, checkpointInBackground, INLINE_CHECKPOINT_PAGES } from "../src/db/sqlite-checkpoints";
import { openStore, type StoreOptions } from "../src/db/store";
import type { Store } from "../src/domain/store";

/**
 * A server's SQLite store copies its write-ahead log into the database from a thread of its own, so no commit
 * waits for a checkpoint on the event loop. The database file only grows when a checkpoint copies pages into
 * it, and the log file only stays short when the log starts over: that is what these tests watch.
 */
const sizeOf = (file: string) => (existsSync(file) ? statSync(file).size : 0);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `done` holds, for up to five seconds (fifty checkpoint ticks) unless told otherwise. */
async function eventually(done: () => boolean, withinMs = 5_000): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < withinMs; ) {
    if (done()) return true;
    await pause(10);
  }
  return done();
}

/** A database in WAL mode whose own connection never checkpoints; each write is one transaction of rows (of 2 kB). */
function writerWithoutCheckpoints(file: string) {
  // As the store's connections: a busy database fails at once, and the write is run again.
  const db = new Database(file, { timeout: 0 });
  db.pragma("journal_mode = WAL");
  db.pragma("wal_autocheckpoint = 0");
  db.exec("CREATE TABLE notes (body TEXT NOT NULL)");
  const insert = db.prepare("INSERT INTO notes (body) VALUES (?)");
  const write = (rows: number, bytes = 2_000) => db.transaction(() => Array.from({ length: rows }, (_, i) => insert.run(`${i}`.padEnd(bytes, "x"))))();
  return { db, write };
}

/** Events that are only collected. */
function collected() {
  const errors: Error[] = [];
  let opened = 0;
  let ended = 0;
  const events: CheckpointEvents = { onOpened: () => opened++, onError: (error) => errors.push(error), onEnded: () => ended++ };
  return { events, errors, opened: () => opened, ended: () => ended };
}

describe.runIf(databaseUnderTest === "sqlite")("checkpoints in the background", () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("copy the log into the database from their thread, and stop when stopped", async () => {
    const file = join(temporaryDirectory(), "log.db");
    const writer = writerWithoutCheckpoints(file);
    cleanups.push(() => writer.db.close());
    writer.write(200);
    const before = sizeOf(file);
    const seen = collected();
    const checkpoints = checkpointInBackground(file, seen.events);

    expect(await eventually(() => sizeOf(file) > before + 200 * 2_000)).toBe(true);
    expect(seen.opened()).toBe(1);
    await checkpoints.stop();
    const stopped = sizeOf(file);
    writer.write(200);
    await pause(CHECKPOINT_EVERY_MS * 5);
    expect(sizeOf(file)).toBe(stopped);
    expect({ errors: seen.errors, ended: seen.ended() }).toEqual({ errors: [], ended: 0 });
  });

  it("copy the log between bursts of commits, so that it starts over instead of growing with them", async () => {
    const file = join(temporaryDirectory(), "steady.db");
    const writer = writerWithoutCheckpoints(file);
    cleanups.push(() => writer.db.close());
    const seen = collected();
    const checkpoints = checkpointInBackground(file, seen.events);
    cleanups.push(() => checkpoints.stop());
    // 20,000 commits of one small row, a page of the log each, in bursts of 2,000 back to back; one that meets a
    // restart runs again. Within a burst the thread's copy falls behind; in the pause after it the copy catches
    // up, and the next commit starts the log over. (Under a stream with no pause at all the copy never catches
    // up, and the connections' backstop is what bounds the log.)
    for (let commits = 0; commits < 20_000; commits++) {
      if (commits % 2_000 === 0) await pause(CHECKPOINT_EVERY_MS * 3);
      for (;;) {
        try {
          writer.write(1, 100);
          break;
        } catch (error) {
          if ((error as { code?: string }).code !== "SQLITE_BUSY") throw error;
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      if (commits % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    // Copied but never started over, the log would hold a page for every commit (80 MB); started over after
    // each burst, about a burst's pages.
    expect(sizeOf(`${file}-wal`)).toBeLessThan(10_000 * 4_096);
    expect(seen.errors).toEqual([]);
  });

  it("report a thread that cannot open the database once, and that it ended, and stop at once", async () => {
    const seen = collected();
    const checkpoints = checkpointInBackground(join(temporaryDirectory(), "missing.db"), seen.events);
    expect(await eventually(() => seen.ended() > 0)).toBe(true);
    expect(seen.errors.map((error) => error.message)).toEqual([expect.stringMatching(/unable to open/)]);
    expect(seen.opened()).toBe(0);
    await checkpoints.stop();
  });

  it("set the connections' own threshold for each mode, and SQLite's again while the thread is not running", async () => {
    const thresholds = (mode: "inline" | "peer" | "thread", file: string) => {
      const set: number[] = [];
      return { set, arranged: arrangeCheckpoints(mode, file, async (pages) => void set.push(pages), () => {}) };
    };
    const missing = join(temporaryDirectory(), "missing.db");
    const inline = thresholds("inline", missing);
    const peer = thresholds("peer", missing);
    expect([await inline.arranged, inline.set, await peer.arranged, peer.set]).toEqual([null, [], null, [BACKSTOP_CHECKPOINT_PAGES]]);

    const thread = thresholds("thread", missing);
    const checkpoints = (await thread.arranged)!;
    cleanups.push(() => checkpoints.stop());
    expect(await eventually(() => thread.set.length === 2)).toBe(true);
    expect(thread.set).toEqual([BACKSTOP_CHECKPOINT_PAGES, INLINE_CHECKPOINT_PAGES]);

    // The database there now: the thread, started again a second after it ended, opens it and copies its log.
    const writer = writerWithoutCheckpoints(missing);
    cleanups.push(() => writer.db.close());
    writer.write(200);
    const before = sizeOf(missing);
    expect(await eventually(() => sizeOf(missing) > before + 200 * 2_000, 15_000)).toBe(true);
    expect(thread.set.at(-1)).toBe(BACKSTOP_CHECKPOINT_PAGES);
  });

  it("start no thread again once stopped, even one that ended by itself", async () => {
    const missing = join(temporaryDirectory(), "missing.db");
    const set: number[] = [];
    const checkpoints = (await arrangeCheckpoints("thread", missing, async (pages) => void set.push(pages), () => {}))!;
    expect(await eventually(() => set.length === 2)).toBe(true);
    await checkpoints.stop();
    const writer = writerWithoutCheckpoints(missing);
    cleanups.push(() => writer.db.close());
    writer.write(200);
    const before = sizeOf(missing);
    await pause(2_500);
    expect({ size: sizeOf(missing), set }).toEqual({ size: before, set: [BACKSTOP_CHECKPOINT_PAGES, INLINE_CHECKPOINT_PAGES] });
  });

  it("keep a process whose last work is closing its store alive until their thread has stopped", () => {
    const files = ["first.db", "second.db", "third.db"].map((name) => join(temporaryDirectory(), name));
    const store = new URL("../src/db/store.ts", import.meta.url).pathname;
    // Whether the process would end before the thread is a race: one process closes three stores, one after another.
    const script = `
      const { openStore } = await import(${JSON.stringify(store)});
      for (const file of ${JSON.stringify(files)}) {
        const store = await openStore({ provider: "sqlite", file }, { checkpoints: "thread" });
        await store.close();
      }
      console.log("closed");`;
    const child = spawnSync(process.execPath, ["--conditions=source", "--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8", timeout: 25_000 });
    expect({ status: child.status, out: child.stdout.trim() }).toEqual({ status: 0, out: "closed" });
  });

  describe("a store", () => {
    const scope = { orgId: "org_checkpoints", environment: "production" as const, route: "memory.encode" };
    const now = new Date("2026-11-27T12:00:00.000Z");
    const expires = new Date("2026-11-28T12:00:00.000Z");
    /** A claimed key whose stored answer fills most of a page. */
    const claimOf = (key: string) => ({ scope: { ...scope, key }, response: { requestHash: `hash-${key}`, status: 201, body: { text: "y".repeat(3_000) } } });
    /** `count` commits of a few pages each (150 of them write about 900). */
    const commit = async (store: Store, count: number) => {
      for (let i = 0; i < count; i++) {
        await store.writeAtomically((batch) => batch.claimKeys([claimOf(`key-${i}`)], now, expires));
      }
    };
    const opened = async (checkpoints: StoreOptions["checkpoints"], errors: Error[] = []) => {
      const database = await freshDatabase();
      const store = await openStore(database, { checkpoints, onCheckpointError: (error) => errors.push(error) });
      cleanups.push(() => store.close());
      const file = (database as { file: string }).file;
      return { store, file, size: sizeOf(file) };
    };

    it("with a thread of its own has its log copied by it; one left to SQLite copies nothing under its threshold", async () => {
      const errors: Error[] = [];
      const thread = await opened("thread", errors);
      const inline = await opened("inline");
      await commit(thread.store, 80);
      await commit(inline.store, 80);

      expect(await eventually(() => sizeOf(thread.file) > thread.size + 80 * 3_000)).toBe(true);
      await pause(CHECKPOINT_EVERY_MS * 5);
      expect(sizeOf(inline.file)).toBe(inline.size);
      expect(errors).toEqual([]);
    });

    it("whose log another process's thread copies does not copy it in its commits past SQLite's threshold", async () => {
      const peer = await opened("peer");
      const inline = await opened("inline");
      await commit(peer.store, 300);
      await commit(inline.store, 300);

      expect(sizeOf(inline.file)).toBeGreaterThan(inline.size);
      await pause(CHECKPOINT_EVERY_MS * 5);
      expect(sizeOf(peer.file)).toBe(peer.size);
    });

    it("slows its writers while a reader holds the log back past the hold, fails none, and starts the log over once it ends", async () => {
      const errors: Error[] = [];
      const { store, file } = await opened("thread", errors);
      await commit(store, 1_000);
      // A reader of the log as it stands: the thread can copy up to where it reads, but not start the log over.
      const reader = new Database(file, { readonly: true });
      cleanups.push(() => reader.close());
      reader.exec("BEGIN");
      reader.prepare("SELECT count(*) FROM IdempotencyRecord").get();
      const claims = (from: number, count: number) => Array.from({ length: count }, (_, i) => claimOf(`held-${from + i}`));
      // Past the hold each restart waits for the reader with the gate raised, and fails; writes go on between.
      let written = 0;
      for (const started = Date.now(); Date.now() - started < 1_500; written += 10) {
        await store.writeAtomically((batch) => batch.claimKeys(claims(written, 10), now, expires));
      }
      // A gate left raised would let one write through a second (GATE_WAIT_MAX_MS): here about 800 writes went.
      expect(written).toBeGreaterThan(200);
      reader.exec("COMMIT");
      // With the reader gone the log starts over: writes go on, and the file stops growing.
      let size = sizeOf(`${file}-wal`);
      let steady = 0;
      for (const started = Date.now(); steady < 20 && Date.now() - started < 10_000; written += 10) {
        await store.writeAtomically((batch) => batch.claimKeys(claims(written, 10), now, expires));
        await pause(5);
        const grown = sizeOf(`${file}-wal`);
        steady = grown === size ? steady + 1 : 0;
        size = grown;
      }
      expect(steady).toBe(20);
      expect(errors).toEqual([]);
      const last = await store.idempotency.findMany({ orgId: scope.orgId, environment: scope.environment, route: scope.route }, [`held-${written - 1}`], now);
      expect(last).toHaveLength(1);
    });

    it("closes its thread's connection with its own, so the last close removes the log", async () => {
      const { store, file } = await opened("thread");
      await commit(store, 80);
      await store.close();
      expect(existsSync(`${file}-wal`)).toBe(false);
    });
  });
});
