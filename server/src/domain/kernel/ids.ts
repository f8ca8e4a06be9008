import { randomFillSync } from "node:crypto";
import { v7 as timeOrderedUuid } from "uuid";

/**
 * Identifiers are a type prefix and 32 hex digits, e.g. `mem_019ac3…`: a UUIDv7, whose leading 48 bits are
 * the time of creation and the rest random. Rows keyed by ids that grow with time are inserted at the end
 * of their key's B-tree instead of on a random page, so a commit writes a few pages per index rather than
 * one per row (docs/performance.md, item 28). Ids are never secrets: tokens and sessions carry their own
 * random bits.
 */
export function newId(prefix: string): string {
  const random = nextRandomBytes();
  advanceClock(random);
  return `${prefix}_${timeOrderedUuid({ random, msecs: clock.msecs, seq: clock.seq }).replaceAll("-", "")}`;
}

/**
 * The random bytes come from a pool filled 4 KiB at a time: drawn one id at a time through Web Crypto, as
 * the library draws them, they were the largest single cost of making an id (docs/performance.md, item 29).
 */
const pool = new Uint8Array(4096);
let poolOffset = pool.length;

function nextRandomBytes(): Uint8Array {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool.subarray(poolOffset, (poolOffset += 16));
}

/**
 * The millisecond and the counter within it, kept as the library keeps them for its own random bytes (it
 * keeps none for bytes it is given): a new millisecond starts the counter from random bits, and ids made
 * within one millisecond count up, so they stay in the order they were made.
 */
const clock = { msecs: -Infinity, seq: 0 };

function advanceClock(random: Uint8Array): void {
  const now = Date.now();
  if (now > clock.msecs) {
    clock.msecs = now;
    clock.seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
    return;
  }
  clock.seq = (clock.seq + 1) | 0;
  if (clock.seq === 0) clock.msecs++;
}
