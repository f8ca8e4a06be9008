import { baseLevelActivation, recallProbability, type UseHistory } from "./activation";

/**
 * How relevance, activation and confidence combine (documented in the README):
 *
 *     score = relevance × (1 - ACTIVATION_WEIGHT + ACTIVATION_WEIGHT × P(recall))
 *                       × (1 - CONFIDENCE_WEIGHT + CONFIDENCE_WEIGHT × confidence)
 *
 * Relevance (BM25) decides what a memory is about and dominates; activation and confidence modulate it,
 * so among memories that answer a question equally well, the reinforced, recent and trusted ones come
 * first, and stale ones sink without vanishing.
 */
export const ACTIVATION_WEIGHT = 0.4;
export const CONFIDENCE_WEIGHT = 0.3;

export interface ScoringInput extends UseHistory {
  relevance: number;
  confidence: number;
}

export interface Score {
  score: number;
  activation: number;
  recall: number;
}

export function scoreMemory(input: ScoringInput, now: Date): Score {
  const activation = baseLevelActivation(input, now);
  const recall = recallProbability(activation);
  const score =
    input.relevance *
    (1 - ACTIVATION_WEIGHT + ACTIVATION_WEIGHT * recall) *
    (1 - CONFIDENCE_WEIGHT + CONFIDENCE_WEIGHT * input.confidence);
  return { score, activation, recall };
}
