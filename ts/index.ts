// ctxwin: keep an LLM agent's conversation inside its model's context window.
//
// The package's root: the names a first program and the common paths need (under 60, held by
// test/ts/architecture/api.test.ts), so that a newcomer meets a handful, not every capability's
// whole vocabulary. Each capability's complete list is its subpath, the folder's index.ts loaded
// on Node by the folder's node.ts (package.json "exports"; docs/api.md has one section per entry):
//   ctxwin/tokens        tokens/      counters, the model-to-encoding map, the message shapes counted
//   ctxwin/models        catalog/     every model's window, output limit and prices (models.dev)
//   ctxwin/budget        budget/      per-model limits, the budget split, the tracker, calibration
//   ctxwin/truncation    truncation/  the truncation strategies and the omission marker
//   ctxwin/compaction    compaction/  tool-result compaction, summaries, the levels; summary models
//   ctxwin/session       session/     session stores (memory, JSONL files, Redis), export/import
//   ctxwin/cost          cost/        prompt-cache billing in dollars, cache hints, cache-aware timing
//   ctxwin/context       context/     MessageContextManager with its stats, events and preview types
//   ctxwin/recall        recall/      reading back what compaction took, the recall tool's logic
//   ctxwin/agent-threads agent-threads/ ContextManager, the reference API's (SPEC-08) drop-in
// The web entry (ts/web/api.ts) lists the same root names less what needs Node.
import "./runtime/node-loader.js"; // loads the core on Node before anything uses it
// The plumbing: which backend runs, the logger interface, the coded errors (all of runtime's list).
export * from "./runtime/index.js";
export { init } from "./runtime/node-loader.js";
export type { CoreData, InitOptions, WasmSource } from "./runtime/web-loader.js";
// A first program: a history kept inside its window.
export {
  MessageContextManager,
  TruncationMode,
  type MessageContextManagerOptions,
  type ContextStats,
  type ContextWarning,
  type TrimEvent,
} from "./context/index.js";
export type { MessageLike, ToolDefinition } from "./messages/index.js";
export { ContextLimits, type LimitOverrides } from "./budget/index.js";
// Counting.
export {
  getCounter,
  getCounterAsync,
  TiktokenCounter,
  ClaudeCounter,
  TokenizerJsonCounter,
  registerTokenizer,
  type TokenCounter,
  type CountMessagesOptions,
} from "./tokens/index.js";
export { resolveModel, registerModel } from "./catalog/index.js";
// Compaction and reading back what it took.
export { ToolResultCompactor, type CompactionReport } from "./compaction/index.js";
export { extractiveSummarizer, type SummaryModel } from "./models/index.js";
export { Recall } from "./recall/index.js";
// Sessions: the default store (JSONL files), the in-memory one, the interface of your own.
export { FileSessionStore, MemorySessionStore, type SessionStore } from "./session/index.js";
// The reference API's thread manager (SPEC-08): what its users import stays at the root.
export {
  ContextManager,
  estimateTokens,
  type ContextManagerOptions,
  type ContextManagementConfig,
  type AgentThread,
  type AgentEvent,
  type SummaryEvent,
} from "./agent-threads/index.js";
