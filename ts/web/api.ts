// The API of the web entry: ctxwin's root API (ts/index.ts) without what needs Node (the JSONL
// file and Redis session stores; a tokenizer.json by path or package name fails with a coded
// error saying to pass the parsed file). Each web entry adds its `init()`.
export * from "../runtime/index.js";
export * from "../messages/index.js";
export * from "../catalog/index.js";
export * from "../tokens/index.js";
export * from "../models/index.js";
export * from "../agent-threads/index.js";
export * from "../budget/index.js";
export * from "../truncation/index.js";
export * from "../compaction/index.js";
export * from "../session/portable.js";
export * from "../cost/index.js";
export * from "../context/index.js";
export * from "../recall/index.js";
export type { CoreData, InitOptions, WasmSource } from "../runtime/web-loader.js";
