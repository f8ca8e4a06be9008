export { analyzeText, foldText, queryTerms } from "./analyze";
export { rankLexically, type LexicalDocument, type LexicalMatch } from "./lexical";
export {
  assembleContext,
  describeAge,
  DEFAULT_CONTEXT_TOKEN_BUDGET,
  type AssembledContext,
  type ContextMemory,
  type ContextMode,
} from "./context";
