export { analyzeText, analyzeWords, foldText, LONGEST_TERM, MAX_TERM_CHARACTERS_PER_TEXT, MAX_TERMS_PER_TEXT, queryTerms, type AnalysedWord } from "./analyze";
export { analyzeQuery, conceptTerms, exactConcepts, PART_WEIGHT, SYNONYM_WEIGHT, type QueryConcept } from "./query";
export { baseLevelActivation, recallProbability, recordUse, RECENT_USES, type UseHistory } from "./activation";
export { scoreMemory, ACTIVATION_WEIGHT, CONFIDENCE_WEIGHT, type Score, type ScoringInput } from "./scoring";
export { countTerms, rankLexically, type CollectionStats, type TermCounts, type LexicalDocument, type LexicalMatch } from "./lexical";
export { feedbackSources, feedbackTerms, withFeedback, FEEDBACK_SOURCES, FEEDBACK_TERMS, FEEDBACK_WEIGHT } from "./feedback";
export {
  assembleContext,
  describeAge,
  DEFAULT_CONTEXT_TOKEN_BUDGET,
  NEAR_DUPLICATE_SIMILARITY,
  type AssembledContext,
  type ContextMemory,
  type ContextMode,
} from "./context";
export { countTokens, countTokensWithin, countTokensWithinStepwise, LONGEST_EXACT_PRE_TOKEN, tokenUpperBound, truncateToTokens } from "./token-count";
export {
  exchangeNeighbours,
  withExchangeContext,
  EXCHANGE_ANCHORS,
  EXCHANGE_WINDOW_MS,
  NEIGHBOUR_WEIGHTS,
  NEIGHBOURS_PER_SIDE,
  type ExchangeNeighbour,
} from "./exchange";
export { reciprocalRankFusion, RRF_K, type Fused } from "./fusion";
export { dot, nearest, unitVector, type Neighbour } from "./vectors";
export { synonymsOf } from "./synonyms";
