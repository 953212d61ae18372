// Recall: what compaction cleared, cut, summarized or trimmed, read back by id.
export {
  Recall,
  DEFAULT_RECALL_TOKENS,
  type RecallAnswer,
  type RecallContext,
  type RecallErrorCode,
  type RecallOptions,
  type RecallReport,
  type RecallRewrite,
  type RecallFitEvent,
} from "./recall.js";
export { RecallCache, DEFAULT_RECALL_CACHE_BYTES, type CacheLookup } from "./recall-cache.js";
export type { RecallQuery, RecallSelection } from "./recall-query.js";
export { RECALL_TOOL, recallInputSchema, type RecallInput } from "./recall-tool.js";
