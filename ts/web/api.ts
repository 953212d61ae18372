// The API of the web entry: ctxwin's root API (ts/index.ts) without what needs Node (the JSONL
// file session store; a tokenizer.json by path or package name fails with a coded error saying to
// pass the parsed file). Each web entry adds its `init()`. The same list as ts/index.ts less that:
// test/ts/web/web-entry.test.ts holds the two together. The capability subpaths' web conditions
// are the folders' index.ts (session's: portable.ts), loaded by this entry's init().
// The plumbing: which backend runs, the logger interface, the coded errors (all of runtime's list).
export * from "../runtime/index.js";
export type { CoreData, InitOptions, WasmSource } from "../runtime/web-loader.js";
// A first program: a history kept inside its window.
export {
  MessageContextManager,
  TruncationMode,
  type MessageContextManagerOptions,
  type ContextStats,
  type ContextWarning,
  type TrimEvent,
} from "../context/index.js";
export type { MessageLike, ToolDefinition } from "../messages/index.js";
export { ContextLimits, type LimitOverrides } from "../budget/index.js";
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
} from "../tokens/index.js";
export { resolveModel, registerModel } from "../catalog/index.js";
// Compaction and reading back what it took.
export { ToolResultCompactor, type CompactionReport } from "../compaction/index.js";
export { extractiveSummarizer, type SummaryModel } from "../models/index.js";
export { Recall } from "../recall/index.js";
// Sessions: the in-memory store (the JSONL file store needs Node), the interface of your own.
export { MemorySessionStore, type SessionStore } from "../session/portable.js";
// The reference API's thread manager (SPEC-08): what its users import stays at the root.
export {
  ContextManager,
  estimateTokens,
  type ContextManagerOptions,
  type ContextManagementConfig,
  type AgentThread,
  type AgentEvent,
  type SummaryEvent,
} from "../agent-threads/index.js";
