// ctxwin: keep an LLM agent's conversation inside its model's context window.
//
// The package's entry point: one folder per capability, each with its own index.
//   spec08/      SPEC-08's ContextManager for threads of agent events (the drop-in)
//   catalog/     every model's window, output limit and prices (models.dev), and the id resolver
//   tokens/      token counters and the counting of whole chat requests
//   history/     limits, budgets, strategies and MessageContextManager for chat histories
//   compaction/  tool-result compaction, summaries of old turns, the progressive levels
//   models/      the summary-model adapters and the offline extractive summarizer
//   session/     export/import, the append-only session stores (memory, JSONL files, Redis)
//   runtime/     the plumbing: native core loader, errors, logger, concurrency
export * from "./spec08/index.js";
export * from "./catalog/index.js";
export * from "./tokens/index.js";
export * from "./history/index.js";
export * from "./compaction/index.js";
export * from "./models/index.js";
export * from "./session/index.js";
export * from "./runtime/index.js";
