// ToolResultCompactor: large tool outputs cut down to a token bound in the core,
// keeping their head and tail, error lines and stack heads; JSON stays valid JSON.
import { CachingCounter } from "../tokens/caching-counter.js";
import { describe, requireCount, requireString, typeError } from "../runtime/errors.js";
import { mapToolResults } from "../messages/tool-results.js";
import type { NativeCompactedResult, NativeCounter } from "../runtime/native.js";
import { nativeCounterOf } from "../tokens/native-counter.js";
import { TiktokenCounter } from "../tokens/tiktoken-counter.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { MessageLike } from "../messages/types.js";
import { checkJsonValue, checkMessage } from "../messages/message-shape.js";

export interface ToolResultCompactorOptions {
  /** Most tokens a result keeps (default 1000). */
  maxResultTokens?: number;
  /** Written where output was removed, followed by how much (default "[Output truncated...]"). */
  truncationMessage?: string;
}

export interface CompactedToolResult {
  text: string;
  changed: boolean;
  /** The input was JSON and the output is valid JSON. */
  json: boolean;
  originalTokens: number;
  tokens: number;
}

let fallbackCounter: TiktokenCounter | undefined;

/** The core counter of an exact counter (TiktokenCounter, ClaudeCounter, TokenizerJsonCounter), also behind a CachingCounter. */
function coreOf(counter: TokenCounter | undefined): NativeCounter | undefined {
  if (counter instanceof CachingCounter) return coreOf(counter.inner);
  return nativeCounterOf(counter);
}

/** The core counter that cuts with cl100k_base, for counters without one of their own (approximations). */
function fallbackCore(): NativeCounter {
  fallbackCounter ??= new TiktokenCounter({ encoding: "cl100k_base" });
  const core = nativeCounterOf(fallbackCounter);
  if (!core) throw typeError("a TiktokenCounter with its rank data is needed to compact tool results");
  return core;
}

function checkCounter(counter: unknown): void {
  if (counter !== undefined && (counter === null || typeof counter !== "object" || typeof (counter as Partial<TokenCounter>).count !== "function")) {
    throw typeError(`counter must be a TokenCounter (an object with count(text)), got ${describe(counter)}`);
  }
}

export class ToolResultCompactor {
  readonly maxResultTokens: number;
  readonly truncationMessage: string;

  constructor(options: ToolResultCompactorOptions = {}) {
    if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
    this.maxResultTokens = requireCount(options.maxResultTokens ?? 1000, "options.maxResultTokens", 1);
    this.truncationMessage = requireString(options.truncationMessage ?? "[Output truncated...]", "options.truncationMessage");
  }

  /**
   * `result` (a string, or any value, which is compacted as its JSON) with at most maxResultTokens
   * tokens by `counter`. A result already under the bound comes back unchanged.
   */
  compactResult(result: unknown, counter?: TokenCounter): string {
    return this.compact(result, counter).text;
  }

  /** compactResult with the details: whether it changed, token counts before and after. */
  compact(result: unknown, counter?: TokenCounter): CompactedToolResult {
    // A tool's output is text or structured JSON (an object or an array); a bare number, boolean
    // or null is not a tool result anyone meant, so it is rejected rather than compacted as "5".
    if (typeof result !== "string" && (result === null || typeof result !== "object")) {
      throw typeError(`result must be a string, an object or an array, got ${describe(result)}`);
    }
    if (typeof result !== "string") checkJsonValue(result, "result");
    checkCounter(counter);
    const text = typeof result === "string" ? result : JSON.stringify(result);
    if (typeof text !== "string") throw typeError(`result must be a string or a JSON value, got ${describe(result)}`);
    // The core cuts with the counter's own tokenizer when it is an exact one (any family), so the
    // bound holds by that counter's count. Any other counter (an approximation) is cut with
    // cl100k_base and checks the result, the bound tightening until it agrees.
    const own = coreOf(counter);
    if (own) return own.compactToolResult(text, this.maxResultTokens, this.truncationMessage);
    const tokenizer = fallbackCore();
    let bound = this.maxResultTokens;
    let out: NativeCompactedResult = tokenizer.compactToolResult(text, bound, this.truncationMessage);
    for (let attempt = 0; counter && attempt < 8; attempt++) {
      const measured = counter.count(out.text);
      if (measured <= this.maxResultTokens) return { ...out, changed: out.text !== text, tokens: measured, originalTokens: counter.count(text) };
      bound = Math.max(1, Math.floor((bound * this.maxResultTokens) / measured) - 1);
      out = tokenizer.compactToolResult(text, bound, this.truncationMessage);
    }
    return out;
  }

  /**
   * A copy of a tool-result message with its result compacted; every other field is kept. Reads
   * OpenAI tool messages, AI SDK tool-result parts and Anthropic tool_result blocks. With
   * `nameRecall`, the notice of each cut result names the recall call that reads the whole of it
   * back by its call's id (`[Output truncated...; recall("call_17")]`), as a cleared result's
   * placeholder does.
   */
  compactMessage<M extends MessageLike>(message: M, counter?: TokenCounter, options: { nameRecall?: boolean } = {}): M {
    checkMessage(message, "message");
    checkCounter(counter);
    if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
    const nameRecall = options.nameRecall ?? false;
    if (typeof nameRecall !== "boolean") throw typeError(`options.nameRecall must be a boolean, got ${describe(nameRecall)}`);
    return mapToolResults(message, (value, kind, id) => {
      const compactor = nameRecall && id !== undefined ? this.naming(id) : this;
      return kind === "json" ? (JSON.parse(compactor.compactResult(value, counter)) as unknown) : compactor.compactResult(value, counter);
    });
  }

  /** This compactor with a notice that names `recall(id)`. */
  private naming(id: string): ToolResultCompactor {
    const notice = this.truncationMessage;
    const call = `recall(${JSON.stringify(id)})`;
    const truncationMessage = notice.endsWith("]") ? `${notice.slice(0, -1)}; ${call}]` : `${notice} ${call}`;
    return new ToolResultCompactor({ maxResultTokens: this.maxResultTokens, truncationMessage });
  }
}
