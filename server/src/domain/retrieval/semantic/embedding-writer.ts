import type { Clock } from "../../kernel/clock";
import type { Store } from "../../store";
import type { EmbeddingTask, Embedder, MemoryVector } from "../ports";

/** Texts per embeddings request: large enough to amortise the round trip, small enough to stay quick. */
export const EMBEDDING_BATCH = 64;

const SWEEP_FAILURES_TO_STOP = 3;

/** The text a memory is embedded from: its subject, when it has one, names what the text is about. */
export const embeddingInput = (task: Pick<EmbeddingTask, "subject" | "text">) => (task.subject ? `${task.subject}: ${task.text}` : task.text);

export interface StoredVector extends MemoryVector {
  agentSlug: string | null;
}

export interface EmbeddingWriterOptions {
  clock: Clock;
  /** Vectors just stored, for this process's index to search at once. */
  onStored: (vectors: readonly StoredVector[]) => void;
  onError: (error: unknown, message: string) => void;
}

/**
 * Embeds memories after they are written, off the write path: a write never waits for the embeddings
 * endpoint and never fails because of it. Memories whose vectors could not be made (endpoint down, a
 * process stopped first, a memory promoted from candidate) are found by `sweep`, run at start and then
 * periodically.
 */
export function embeddingWriter(store: Store, embedder: Embedder, { clock, onStored, onError }: EmbeddingWriterOptions) {
  const pending: EmbeddingTask[] = [];
  let draining: Promise<void> | null = null;
  let sweeping: Promise<{ embedded: number; failed: number }> | null = null;
  let stopped = false;

  async function embedAndStore(tasks: readonly EmbeddingTask[]): Promise<void> {
    const vectors = await embedder.embed(tasks.map(embeddingInput));
    const stored: StoredVector[] = tasks.map((task, i) => ({
      memoryId: task.memoryId,
      orgId: task.orgId,
      environment: task.environment,
      agentSlug: task.agentSlug,
      model: embedder.model,
      vector: vectors[i]!,
    }));
    await store.transaction((tx) => tx.embeddings.save(stored, clock()));
    onStored(stored);
  }

  async function drain(): Promise<void> {
    while (pending.length > 0) {
      const batch = pending.splice(0, EMBEDDING_BATCH);
      await embedAndStore(batch).catch((error) => onError(error, `embedding ${batch.length} memories failed; the next sweep retries them`));
    }
  }

  function kick(): void {
    if (draining || pending.length === 0) return;
    draining = drain().finally(() => {
      draining = null;
      kick();
    });
  }

  /**
   * One pass over the durable memories without a vector of the current model. A batch that fails is
   * skipped (one bad text must not stall the rest); several failing in a row mean the endpoint is down,
   * and the pass stops until the next sweep.
   */
  async function sweepOnce(): Promise<{ embedded: number; failed: number }> {
    let after: EmbeddingTask | null = null;
    let embedded = 0;
    let failed = 0;
    let failuresInARow = 0;
    while (!stopped && failuresInARow < SWEEP_FAILURES_TO_STOP) {
      const tasks = await store.embeddings.missing(embedder.model, after, EMBEDDING_BATCH);
      if (tasks.length === 0) break;
      after = tasks.at(-1)!;
      try {
        await embedAndStore(tasks);
        embedded += tasks.length;
        failuresInARow = 0;
      } catch (error) {
        failed += tasks.length;
        failuresInARow++;
        onError(error, `embedding ${tasks.length} memories failed during the sweep`);
      }
    }
    return { embedded, failed };
  }

  return {
    /** Queues freshly written durable memories for embedding. */
    enqueue(tasks: readonly EmbeddingTask[]): void {
      if (stopped) return;
      pending.push(...tasks);
      kick();
    },

    /** Embeds what earlier writes left without a vector (see sweepOnce); one pass at a time. */
    sweep(): Promise<{ embedded: number; failed: number }> {
      sweeping ??= sweepOnce().finally(() => (sweeping = null));
      return sweeping;
    },

    /** Resolves once everything queued so far has been embedded or given up on. */
    async idle(): Promise<void> {
      while (draining) await draining;
    },

    /** Drops what is queued, stops any sweep after its current batch, and waits for that batch. */
    async stop(): Promise<void> {
      stopped = true;
      pending.length = 0;
      await Promise.allSettled([draining, sweeping]);
    },
  };
}

export type EmbeddingWriter = ReturnType<typeof embeddingWriter>;
