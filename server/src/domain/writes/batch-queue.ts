import { AppError } from "../kernel/errors";

/**
 * Group commit: work submitted while a batch is being written waits and goes into the next batch, so
 * under load many writes share one transaction and a few multi-row statements, and a single write is
 * never delayed by more than the batch in front of it.
 */
export class BatchQueue<TItem, TResult> {
  #pending: Array<{ item: TItem; resolve: (result: TResult) => void; reject: (error: unknown) => void }> = [];
  #draining = false;

  constructor(
    /** Writes one batch; answers per item, in order, with a result or the error for that item alone. */
    private readonly processBatch: (items: TItem[]) => Promise<Array<TResult | Error>>,
    private readonly maxBatchSize = 200,
  ) {}

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
      const batch = this.#pending.splice(0, this.maxBatchSize);
      const results = await this.#processIsolated(batch.map((entry) => entry.item));
      batch.forEach((entry, index) => {
        const result = results[index];
        if (result instanceof Error) entry.reject(result);
        else entry.resolve(result as TResult);
      });
    }
    this.#draining = false;
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
