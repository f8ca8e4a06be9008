import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { databaseUnderTest, freshDatabase, temporaryDirectory } from "@engram/test-support";
import { CHECKPOINT_EVERY_MS, checkpointInBackground } from "../src/db/sqlite-checkpoints";
import { openStore } from "../src/db/store";
import type { Store } from "../src/domain/store";

/**
 * A long-running server's SQLite store copies its write-ahead log into the database from a thread of its own,
 * so no commit waits for a checkpoint on the event loop. The database file only grows when a checkpoint copies
 * pages into it: that is what these tests watch.
 */
const sizeOf = (file: string) => statSync(file).size;

/** Polls until `done` holds, for up to five seconds (fifty checkpoint ticks). */
async function eventually(done: () => boolean): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < 5_000; ) {
    if (done()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return done();
}

/** A database in WAL mode whose own connection never checkpoints, holding `rows` rows of 2 kB in its log. */
function writerWithoutCheckpoints(file: string) {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("wal_autocheckpoint = 0");
  db.exec("CREATE TABLE notes (body TEXT NOT NULL)");
  const insert = db.prepare("INSERT INTO notes (body) VALUES (?)");
  return { db, write: (rows: number) => db.transaction(() => Array.from({ length: rows }, (_, i) => insert.run(`${i}`.padEnd(2_000, "x"))))() };
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
    const errors: Error[] = [];
    const checkpoints = checkpointInBackground(file, (error) => errors.push(error));

    expect(await eventually(() => sizeOf(file) > before + 200 * 2_000)).toBe(true);
    await checkpoints.stop();
    const stopped = sizeOf(file);
    writer.write(200);
    await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_EVERY_MS * 5));
    expect(sizeOf(file)).toBe(stopped);
    expect(errors).toEqual([]);
  });

  it("report a thread that cannot open the database, and stop at once", async () => {
    const errors: Error[] = [];
    const checkpoints = checkpointInBackground(join(temporaryDirectory(), "missing.db"), (error) => errors.push(error));
    expect(await eventually(() => errors.length > 0)).toBe(true);
    expect(errors[0]!.message).toMatch(/unable to open/);
    await checkpoints.stop();
  });

  it("keep a process whose last work is closing its store alive until their thread has stopped", () => {
    const files = ["first.db", "second.db", "third.db"].map((name) => join(temporaryDirectory(), name));
    const store = new URL("../src/db/store.ts", import.meta.url).pathname;
    // Whether the process would end before the thread is a race: one process closes three stores, one after another.
    const script = `
      const { openStore } = await import(${JSON.stringify(store)});
      for (const file of ${JSON.stringify(files)}) {
        const store = await openStore({ provider: "sqlite", file }, { onCheckpointError: () => {} });
        await store.close();
      }
      console.log("closed");`;
    const child = spawnSync(process.execPath, ["--conditions=source", "--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8", timeout: 60_000 });
    expect({ status: child.status, out: child.stdout.trim() }).toEqual({ status: 0, out: "closed" });
  });

  describe("a store", () => {
    const scope = { orgId: "org_checkpoints", environment: "production" as const, route: "memory.encode" };
    const now = new Date("2026-11-27T12:00:00.000Z");
    const expires = new Date("2026-11-28T12:00:00.000Z");
    /** A hundred and fifty commits of a few pages each: fewer than SQLite's own checkpoint waits for. */
    const commitPages = async (store: Store) => {
      for (let i = 0; i < 150; i++) {
        const claim = { scope: { ...scope, key: `key-${i}` }, response: { requestHash: `hash-${i}`, status: 201, body: { text: "y".repeat(3_000) } } };
        await store.writeAtomically((batch) => batch.claimKeys([claim], now, expires));
      }
    };
    const opened = async (options: Parameters<typeof openStore>[1]) => {
      const database = await freshDatabase();
      const store = await openStore(database, options);
      cleanups.push(() => store.close());
      return { store, file: (database as { file: string }).file };
    };

    it("opened for a server checkpoints from its thread; one opened without leaves the log to its commits", async () => {
      const errors: Error[] = [];
      const background = await opened({ onCheckpointError: (error) => errors.push(error) });
      const inline = await opened({});
      const sizes = { background: sizeOf(background.file), inline: sizeOf(inline.file) };
      await commitPages(background.store);
      await commitPages(inline.store);

      expect(await eventually(() => sizeOf(background.file) > sizes.background + 150 * 3_000)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_EVERY_MS * 5));
      expect(sizeOf(inline.file)).toBe(sizes.inline);
      expect(errors).toEqual([]);
    });

    it("closes its thread's connection with its own, so the last close removes the log", async () => {
      const { store, file } = await opened({ onCheckpointError: () => {} });
      await commitPages(store);
      await store.close();
      expect(existsSync(`${file}-wal`)).toBe(false);
    });
  });
});
