// Compaction: making a history smaller without dropping what matters. Tool results compacted
// to a token bound (errors kept, JSON kept valid), old turns summarized through a model, and the
// progressive levels a MessageContextManager runs from cheapest to most lossy. The summary models
// (models/) are the subpath's too: what a summary is written with.
export { ToolResultCompactor, type ToolResultCompactorOptions, type CompactedToolResult } from "./tool-result-compactor.js";
export {
  ContextCompactor,
  type ContextCompactorOptions,
  type CompactOptions,
  type CompactionResult,
  type SummaryMessage,
} from "./context-compactor.js";
export type { CompactionReport, CompactionLevelReport } from "./progressive-compaction.js";
export type { CompactionLevelName } from "./compaction-level.js";
export type { BreakerState, BreakerEvent } from "./circuit-breaker.js";
export type { ProblemRecord, Problem as OpenProblem } from "./open-problems.js";
export * from "../models/index.js";
