// ctxwin: keep an LLM agent's conversation inside its model's context window.
//
// The package's entry point: one folder per capability, each with its own index.
//   messages/    the message vocabulary: shapes, roles, the omission marker
//   spec08/      ContextManager for threads of agent events, a drop-in for the reference API agent loops call
//   tokens/      token counters and the counting of whole chat requests
//   history/     limits, budgets, the tracker and the truncation strategies
//   context/     MessageContextManager: a chat history kept inside its window
//   compaction/  tool-result compaction, summaries of old turns, the progressive levels
//   models/      the summary-model adapters and the offline extractive summarizer
//   session/     export/import, the append-only session stores (memory, JSONL files, Redis)
//   runtime/     the plumbing: native core loader, errors, logger, concurrency
export * from "./messages/index.js";
export * from "./spec08/index.js";
export * from "./tokens/index.js";
export * from "./history/index.js";
export * from "./context/index.js";
export * from "./compaction/index.js";
export * from "./models/index.js";
export * from "./session/index.js";
export * from "./runtime/index.js";
