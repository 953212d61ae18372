// Anthropic's prompt cache reads only what a request marks: `cache_control` breakpoints, at most 4
// a request. This places them where ctxwin keeps a request stable: the end of the tool
// definitions, the end of the system prompt, the last compaction boundary (the omission marker
// or summary that closes what compaction rewrote, so that the next rewrite behind it still reads
// everything before it) and the newest turn (so that the next request reads this whole one).
// The caller's own breakpoints count toward the 4; ours go in order of what they save: the newest
// turn, the system prompt, the boundary, the tools. The caller's body is not changed: the
// function returns a copy that shares every part it did not mark.
import { describe, rangeError, typeError } from "../runtime/errors.js";
import { lastCompactionBoundary } from "./compaction-boundary.js";
import type { AnthropicCacheTtl } from "./provider-cache.js";

export interface AnthropicCacheControl {
  type: "ephemeral";
  ttl?: AnthropicCacheTtl;
}

type Block = Record<string, unknown> & { cache_control?: AnthropicCacheControl };

/** A Messages API request body, as far as cache hints read it. */
export interface AnthropicRequestBody {
  system?: string | Block[];
  tools?: Block[];
  messages: Array<{ role: string; content: string | Block[] }>;
  [key: string]: unknown;
}

export interface AnthropicCacheHintOptions {
  /** "5m" (default; written at 1.25x) or "1h" (2x): the TTL each breakpoint asks for. */
  ttl?: AnthropicCacheTtl;
  /**
   * The index in `messages` of the last compaction boundary. Default: the last message holding
   * what a compaction wrote (an omission marker, a summary, a cleared tool result's placeholder).
   */
  boundary?: number;
}

export const MAX_ANTHROPIC_BREAKPOINTS = 4;
function countBreakpoints(blocks: readonly Block[] | undefined): number {
  return (blocks ?? []).filter((b) => b !== null && typeof b === "object" && b.cache_control !== undefined).length;
}

function checkBody(body: unknown): asserts body is AnthropicRequestBody {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw typeError(`body must be a Messages API request object, got ${describe(body)}`);
  const { system, tools, messages } = body as Record<string, unknown>;
  if (!Array.isArray(messages)) throw typeError(`body.messages must be an array, got ${describe(messages)}`);
  messages.forEach((m: unknown, i) => {
    if (m === null || typeof m !== "object") throw typeError(`body.messages[${i}] must be an object, got ${describe(m)}`);
    const content = (m as { content?: unknown }).content;
    if (typeof content !== "string" && !(Array.isArray(content) && content.every((b) => b !== null && typeof b === "object"))) {
      throw typeError(`body.messages[${i}].content must be a string or an array of content blocks, got ${describe(content)}`);
    }
  });
  if (
    system !== undefined &&
    typeof system !== "string" &&
    !(Array.isArray(system) && system.every((b) => b !== null && typeof b === "object"))
  ) {
    throw typeError(`body.system must be a string or an array of text blocks, got ${describe(system)}`);
  }
  if (tools !== undefined && !(Array.isArray(tools) && tools.every((t) => t !== null && typeof t === "object")))
    throw typeError(`body.tools must be an array of tool objects, got ${describe(tools)}`);
}

/** Marks the last block of `content` (a string becomes one text block). */
function markContent(content: string | Block[], control: AnthropicCacheControl): Block[] {
  const blocks: Block[] = typeof content === "string" ? [{ type: "text", text: content }] : content.slice();
  const last = blocks.length - 1;
  blocks[last] = { ...blocks[last], cache_control: control };
  return blocks;
}

function lastMarked(content: string | Block[]): boolean {
  return typeof content !== "string" && content.length > 0 && content[content.length - 1]?.cache_control !== undefined;
}

/**
 * `body` with `cache_control` breakpoints on its stable prefix (at most 4 in all, the caller's
 * included). Bad input throws a coded TypeError / RangeError; the caller's body never changes.
 */
export function anthropicCacheControl<B extends AnthropicRequestBody>(body: B, options: AnthropicCacheHintOptions = {}): B {
  checkBody(body);
  if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
  const ttl = options.ttl ?? "5m";
  if (ttl !== "5m" && ttl !== "1h") throw rangeError(`options.ttl must be "5m" or "1h", got ${describe(ttl)}`);
  const { messages } = body;
  if (options.boundary !== undefined) {
    const b = options.boundary;
    if (typeof b !== "number") throw typeError(`options.boundary must be a number, got ${describe(b)}`);
    if (!Number.isSafeInteger(b) || b < 0 || b >= messages.length)
      throw rangeError(`options.boundary must be an index of body.messages (0 to ${messages.length - 1}), got ${b}`);
  }
  const control: AnthropicCacheControl = ttl === "5m" ? { type: "ephemeral" } : { type: "ephemeral", ttl };
  const existing =
    countBreakpoints(body.tools) +
    (Array.isArray(body.system) ? countBreakpoints(body.system) : 0) +
    messages.reduce((n, m) => n + (typeof m.content === "string" ? 0 : countBreakpoints(m.content)), 0);
  if (existing > MAX_ANTHROPIC_BREAKPOINTS)
    throw rangeError(`body already holds ${existing} cache_control breakpoints; Anthropic accepts at most ${MAX_ANTHROPIC_BREAKPOINTS}`);
  let room = MAX_ANTHROPIC_BREAKPOINTS - existing;
  const found = lastCompactionBoundary(messages);
  const boundary = options.boundary ?? (found >= 0 ? found : undefined);
  const out: AnthropicRequestBody = { ...body };
  let outMessages = messages;
  const markMessage = (index: number): void => {
    const message = outMessages[index];
    if (
      room === 0 ||
      message === undefined ||
      lastMarked(message.content) ||
      (typeof message.content !== "string" && message.content.length === 0)
    )
      return;
    if (outMessages === messages) outMessages = messages.slice();
    outMessages[index] = { ...message, content: markContent(message.content, control) };
    room--;
  };
  if (messages.length > 0) markMessage(messages.length - 1);
  const system = body.system;
  if (room > 0 && system !== undefined && system.length > 0 && !(typeof system !== "string" && lastMarked(system))) {
    out.system = markContent(system, control);
    room--;
  }
  if (boundary !== undefined && boundary !== messages.length - 1) markMessage(boundary);
  const tools = body.tools;
  if (room > 0 && tools !== undefined && tools.length > 0 && tools[tools.length - 1]?.cache_control === undefined) {
    const marked = tools.slice();
    marked[marked.length - 1] = { ...marked[marked.length - 1], cache_control: control };
    out.tools = marked;
    room--;
  }
  out.messages = outMessages;
  return out as B;
}
