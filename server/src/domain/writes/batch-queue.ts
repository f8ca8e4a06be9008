import { AppError } from "../kernel/errors";

/** How large a batch may grow: in items, and in weight (the work an item brings, e.g. the text it indexes). */
export interface BatchLimits<TItem> {
  maxItems?: number;
  weigh?: (item: TItem) => number;
  maxWeight?: number;
}

/**
 * The limits of a batch of writes that index text: its characters, so that however long the texts, indexing a
 * batch's worth (all in one turn of the event loop, on SQLite) stays far inside the time any request may hold.
 */
export const TEXT_WRITE_LIMITS = {
  weigh: ({ input }: { input: { text: string; subject?: string } }) => input.text.length + (input.subject?.length ?? 0),
  maxWeight: 16_000,
} satisfies BatchLimits<{ input: { text: string; subject?: string } }>;

/**
 * Group commit: work submitted while a batch is being written waits and goes into the next batch, so
 * under load many writes share one transaction and a few multi-row statements, and a single write is
 * never delayed by more than the batch in front of it.
 *
 * A batch is written in one turn of the event loop (SQLite's transactions are synchronous), so it is bounded
 * by weight as well as by count, and the loop gets a turn between batches: however many long writes arrive
 * at once, no turn holds more than one batch's worth of them.
 */
export class BatchQueue<TItem, TResult> {
  #pending: Array<{ item: TItem; resolve: (result: TResult) => void; reject: (error: unknown) => void }> = [];
  #draining = false;
  readonly #maxItems: number;
  readonly #weigh: (item: TItem) => number;
  readonly #maxWeight: number;

  constructor(
    /** Writes one batch; answers per item, in order, with a result or the error for that item alone. */
    private readonly processBatch: (items: TItem[]) => Promise<Array<TResult | Error>>,
    { maxItems = 200, weigh = () => 0, maxWeight = Infinity }: BatchLimits<TItem> = {},
  ) {
    this.#maxItems = maxItems;
    this.#weigh = weigh;
    this.#maxWeight = maxWeight;
  }

  submit(item: TItem): Promise<TResult> {
    return new Promise<TResult>((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      // Let everything that arrives in this turn of the event loop join the first batch.
      if (!this.#draining) {
        this.#draining = true;
        setImmediate(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, this.#nextBatchSize());
      const results = await this.#processIsolated(batch.map((entry) => entry.item));
      batch.forEach((entry, index) => {
        const result = results[index];
        if (result instanceof Error) entry.reject(result);
        else entry.resolve(result as TResult);
      });
      if (this.#pending.length > 0) await new Promise((resolve) => setImmediate(resolve));
    }
    this.#draining = false;
  }

  /** How many of the waiting items the next batch takes: within both limits, and at least one. */
  #nextBatchSize(): number {
    let weight = 0;
    let size = 0;
    for (const { item } of this.#pending) {
      if (size === this.#maxItems) break;
      weight += this.#weigh(item);
      if (size > 0 && weight > this.#maxWeight) break;
      size++;
    }
    return size;
  }

  /**
   * A batch that fails as a whole is retried item by item, so one bad item cannot fail its neighbours; but
   * not when the database is unavailable, which would fail each of them again, each after its own wait.
   */
  async #processIsolated(items: TItem[]): Promise<Array<TResult | Error>> {
    try {
      return await this.processBatch(items);
    } catch (error) {
      const unavailable = error instanceof AppError && error.code === "service_unavailable";
      if (items.length === 1 || unavailable) return items.map(() => (error instanceof Error ? error : new Error(String(error))));
      const results: Array<TResult | Error> = [];
      for (const item of items) results.push(...(await this.#processIsolated([item])));
      return results;
    }
  }
}
