import type { Clock } from "../../kernel/clock";
import type { Store } from "../../store";
import type { Embedder } from "../ports";
import { embeddingWriter } from "./embedding-writer";
import { semanticSearch } from "./semantic-search";
import { vectorIndex } from "./vector-index";

export interface SemanticOptions {
  minSimilarity: number;
  clock: Clock;
  onError: (error: unknown, message: string) => void;
}

/** The semantic half of retrieval over one embedder: the writer that embeds memories and the search over their vectors. */
export function semanticRetrieval(store: Store, embedder: Embedder, { minSimilarity, clock, onError }: SemanticOptions) {
  const index = vectorIndex(store.embeddings, embedder.model);
  return {
    writer: embeddingWriter(store, embedder, { clock, onError, onStored: (vectors) => index.add(vectors) }),
    search: semanticSearch(embedder, index, { minSimilarity, onError }),
  };
}

export type SemanticRetrieval = ReturnType<typeof semanticRetrieval>;
