// Token counting: the TokenCounter interface and its counters (exact BPE through the core,
// approximations, a caching wrapper), the model-to-encoding map, and the counting of whole chat
// requests over the message shapes ctxwin reads (OpenAI, AI SDK, Anthropic), which the subpath
// `ctxwin/tokens` exports with them.
export { TiktokenCounter, type TiktokenCounterOptions } from "./tiktoken-counter.js";
export { ApproximateCounter, type ApproximateCounterOptions } from "./approximate-counter.js";
export { CachingCounter, type CachingCounterOptions } from "./caching-counter.js";
export { ClaudeCounter, type ClaudeCounterOptions } from "./claude-counter.js";
export { claudeFamilyForModel, type ClaudeFamily } from "./claude-family.js";
export type { ClaudeRequestCount } from "./claude-messages.js";
export { getCounter, getCounterAsync } from "./get-counter.js";
export {
  TokenizerJsonCounter,
  type TokenizerJsonCounterOptions,
  type TokenizerSource,
  type TokenizerJson,
  type TokenizerLoadOrigin,
} from "./tokenizer-json-counter.js";
export type { ChatFormatName } from "./chat-formats.js";
export { registerTokenizer, clearRegisteredTokenizers } from "./open-models.js";
export { ENCODING_NAMES, type EncodingName, type ClaudeEncodingName, type ModelEncoding } from "./encodings.js";
export { encodingForModel } from "./tokenizer-choice.js";
export type { TokenCounter, BatchTokenCounter, CountMessagesOptions, AsyncCountOptions } from "./token-counter.js";
export type { MessageLike, ToolDefinition, FunctionDefinition, JsonSchema, SystemTextBlock } from "../messages/index.js";
