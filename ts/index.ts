// ctxwin: keep an LLM agent's conversation inside its model's context window.
//
// The package's entry point: one folder per capability, each with its own index, in the order of
// their layers (lowest first; docs/architecture.md). docs/api.md lists what each exports.
//   runtime/     the plumbing: native core loader, errors, logger, concurrency
//   messages/    the message vocabulary: shapes, roles, the omission marker
//   catalog/     every model's window, output limit and prices (models.dev), the one id resolver
//   tokens/      token counters and the counting of whole chat requests
//   models/      the summary-model adapters and the offline extractive summarizer
//   agent-threads/ ContextManager for threads of agent events: the reference API's (SPEC-08) drop-in
//   budget/      per-model limits, the budget split, the tracker, usage calibration
//   truncation/  the truncation strategies
//   compaction/  tool-result compaction, summaries of old turns, the progressive levels
//   session/     export/import, the append-only session stores (memory, JSONL files, Redis)
//   cost/        prompt-cache billing in dollars, provider cache hints, cache-aware compaction timing
//   context/     MessageContextManager: a chat history kept inside its window
//   recall/      reading back what compaction took: the originals by id, the recall tool's logic
import "./runtime/node-loader.js"; // loads the core on Node before anything uses it
export * from "./runtime/index.js";
export * from "./messages/index.js";
export * from "./catalog/index.js";
export * from "./tokens/index.js";
export * from "./models/index.js";
export * from "./agent-threads/index.js";
export * from "./budget/index.js";
export * from "./truncation/index.js";
export * from "./compaction/index.js";
export * from "./session/index.js";
export * from "./cost/index.js";
export * from "./context/index.js";
export * from "./recall/index.js";
export { init } from "./runtime/node-loader.js";
export type { CoreData, InitOptions, WasmSource } from "./runtime/web-loader.js";
