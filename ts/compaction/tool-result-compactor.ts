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
  if (
    counter !== undefined &&
    (counter === null || typeof counter !== "object" || typeof (counter as Partial<TokenCounter>).count !== "function")
  ) {
    throw typeError(`counter must be a TokenCounter (an object with count(text)), got ${describe(counter)}`);
  }
}

export class ToolResultCompactor {
  readonly maxResultTokens: number;
  readonly truncationMessage: string;
  /** The tool call whose recall this compactor's notice names (namingRecall). */
  private recallId: string | undefined;

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
    const out = this.compactWithin(text, this.maxResultTokens, counter);
    return this.recallId === undefined ? out : this.namedInJson(text, out, counter);
  }

  /** `text` cut to `bound` tokens by `counter`. */
  private compactWithin(text: string, bound: number, counter: TokenCounter | undefined): CompactedToolResult {
    // The core cuts with the counter's own tokenizer when it is an exact one (any family), so the
    // bound holds by that counter's count. Any other counter (an approximation) is cut with
    // cl100k_base and checks the result, the bound tightening until it agrees.
    const own = coreOf(counter);
    if (own) return own.compactToolResult(text, bound, this.truncationMessage);
    const tokenizer = fallbackCore();
    let inner = bound;
    let out: NativeCompactedResult = tokenizer.compactToolResult(text, inner, this.truncationMessage);
    for (let attempt = 0; counter && attempt < 8; attempt++) {
      const measured = counter.count(out.text);
      if (measured <= bound) return { ...out, changed: out.text !== text, tokens: measured, originalTokens: counter.count(text) };
      inner = Math.max(1, Math.floor((inner * bound) / measured) - 1);
      out = tokenizer.compactToolResult(text, inner, this.truncationMessage);
    }
    return out;
  }

  /**
   * A JSON result is cut by eliding items, keys and string middles, each elision saying what went
   * but none naming how to get it back: a compactor that names a recall call writes its notice
   * into the first elision (JSON-escaped, so the result stays valid JSON), within the bound.
   */
  private namedInJson(text: string, out: CompactedToolResult, counter: TokenCounter | undefined): CompactedToolResult {
    if (!out.changed || !out.json) return out;
    const inside = JSON.stringify(this.truncationMessage).slice(1, -1);
    if (out.text.includes(inside)) return out;
    const measure = (t: string) => (counter ?? (fallbackCore(), fallbackCounter as TiktokenCounter)).count(t);
    let current = out;
    for (let attempt = 0; attempt < 8; attempt++) {
      const named = withNotice(current.text, inside);
      if (named === undefined) return current;
      const tokens = measure(named);
      if (tokens <= this.maxResultTokens) return { ...current, text: named, tokens };
      const bound = current.tokens - (tokens - this.maxResultTokens) - attempt;
      if (bound < 1) return current;
      current = this.compactWithin(text, bound, counter);
      if (!current.json || current.text.includes(inside)) return current;
    }
    return current;
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
      const compactor = nameRecall && id !== undefined ? this.namingRecall(id) : this;
      return kind === "json" ? (JSON.parse(compactor.compactResult(value, counter)) as unknown) : compactor.compactResult(value, counter);
    });
  }

  /**
   * This compactor with a notice that names the recall call reading back the result of the tool
   * call `id` (`[Output truncated...; recall("call_17")]`): what level 1 and the adapters' cut on
   * arrival write.
   */
  namingRecall(id: string): ToolResultCompactor {
    requireString(id, "id");
    const notice = this.truncationMessage;
    const call = `recall(${JSON.stringify(id)})`;
    const truncationMessage = notice.endsWith("]") ? `${notice.slice(0, -1)}; ${call}]` : `${notice} ${call}`;
    const named = new ToolResultCompactor({ maxResultTokens: this.maxResultTokens, truncationMessage });
    named.recallId = id;
    return named;
  }
}

/** The elisions the core writes into a JSON result it cuts (each inside a JSON string). */
const JSON_ELISION = /\[\.\.\. \d+ more items \.\.\.\]|\d+ more keys|\[\.\.\. \d+ bytes elided \.\.\.\]|\[nested data elided\]/;

/** `json` with `inside` (JSON-escaped text) after its first elision, or undefined when it has none (or the result would not parse). */
function withNotice(json: string, inside: string): string | undefined {
  const match = JSON_ELISION.exec(json);
  if (match === null) return undefined;
  const at = match.index + match[0].length;
  const named = `${json.slice(0, at)} ${inside}${json.slice(at)}`;
  try {
    JSON.parse(named);
    return named;
  } catch {
    return undefined;
  }
}
