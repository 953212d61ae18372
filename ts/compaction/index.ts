// Compaction: making a history smaller without dropping what matters. Tool results compacted
// to a token bound (errors kept, JSON kept valid), old turns summarized through a model, and the
// progressive levels a MessageContextManager runs from cheapest to most lossy.
export { ToolResultCompactor, type ToolResultCompactorOptions, type CompactedToolResult } from "./tool-result-compactor.js";
export {
  ContextCompactor,
  DEFAULT_SUMMARY_PROMPT,
  type ContextCompactorOptions,
  type CompactOptions,
  type CompactionResult,
  type SummaryMessage,
} from "./context-compactor.js";
export {
  CLEARED_TOOL_RESULT,
  type CompactionReport,
  type CompactionLevelReport,
  type CompactionLevelName,
  type BreakerState,
  type BreakerEvent,
} from "./progressive-compaction.js";
