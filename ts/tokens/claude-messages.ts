// Whole Anthropic requests for ClaudeCounter: messages of every shape ctxwin reads, a system
// prompt, tool definitions with Anthropic's tool-use system prompt, tool_use / tool_result blocks,
// images and documents.
//
// Exact (measured against count_tokens): a request holding one user message whose content is text,
// in every family. Everything else is unmeasured, and is counted so that ctxwin does not count
// less than Anthropic: every further message (and the system prompt) is charged a whole message
// frame, every further content block a margin, tool calls and results a margin, tool definitions as
// their JSON plus a margin, images by Anthropic's published formula after its resizing, documents by
// pages. docs/claude.md lists each figure and why it is one.
import { describe, rangeError, typeError } from "../runtime/errors.js";
import type { ClaudeFamily } from "./claude-family.js";
import { isRecord, roleOf, visitMessage, visitToolOutput, type MessageVisitor } from "../messages/message-shape.js";
import { chatMessageOf } from "../messages/langchain-shape.js";
import { Tally, countTallies, systemBlocksText } from "./message-count.js";
import type { CountMessagesOptions } from "./token-counter.js";
import type { MessageLike, ToolDefinition } from "../messages/types.js";

/** The unmeasured charges of a Claude request, each meant to be at least what Anthropic counts. */
export const CLAUDE_REQUEST_MARGINS = {
  /** Each content block of a message after its first (the blocks' joins). */
  extraBlock: 2,
  /** Each tool_use block beyond its name, id and input JSON (its call markup). */
  toolUse: 10,
  /** Each tool_result block beyond its id and content (its result markup). */
  toolResult: 5,
  /** Each tool definition beyond its JSON (its place in the tool-use system prompt). */
  toolDefinition: 10,
  /** Per PDF page: the page's text (Anthropic: 1,500 to 3,000 tokens a page in all). */
  documentPageText: 1500,
} as const;

interface ImageLimits {
  maxEdge: number;
  maxPixels: number;
}

// Anthropic's vision docs: images larger than the native resolution are scaled down (long edge
// 1568 px and about 1.15 MP, ~1,600 tokens, up to Opus 4.6; long edge 2576 px, about 3.75 MP, from
// Opus 4.7), then padded to a multiple of 28 px; an image costs about width * height / 750 tokens.
function imageLimits(family: ClaudeFamily): ImageLimits {
  return family === "v3" ? { maxEdge: 1568, maxPixels: 1600 * 750 } : { maxEdge: 2576, maxPixels: 5000 * 750 };
}

/** Tokens of a width x height image for `family`: resized, padded to 28 px, then w * h / 750, rounded up. */
export function claudeImageTokensFor(width: number, height: number, family: ClaudeFamily): number {
  const { maxEdge, maxPixels } = imageLimits(family);
  const scale = Math.min(1, maxEdge / Math.max(width, height), Math.sqrt(maxPixels / (width * height)));
  const w = Math.max(1, Math.floor(width * scale));
  const h = Math.max(1, Math.floor(height * scale));
  const padded = (n: number) => Math.ceil(n / 28) * 28;
  return Math.ceil((padded(w) * padded(h)) / 750);
}

/** An image whose size cannot be read: the largest the family's resizing lets through, padding included. */
export function claudeUnknownImageTokens(family: ClaudeFamily): number {
  const { maxEdge, maxPixels } = imageLimits(family);
  return Math.ceil((maxPixels + 28 * 2 * maxEdge + 28 * 28) / 750);
}

const BASE64_VALUES: Int8Array = (() => {
  const values = new Int8Array(128).fill(-1);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (let i = 0; i < 64; i++) values[alphabet.charCodeAt(i)] = i;
  values[45] = 62; // base64url's "-" and "_"
  values[95] = 63;
  return values;
})();

/** Base64 or base64url, leniently (characters of neither are skipped, "=" ends it), as Node's Buffer reads it. */
function decodeBase64(text: string): Uint8Array {
  const out = new Uint8Array(Math.ceil((text.length * 3) / 4));
  let length = 0;
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 61) break;
    const value = c < 128 ? (BASE64_VALUES[c] as number) : -1;
    if (value < 0) continue;
    buffer = ((buffer << 6) | value) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[length++] = (buffer >> bits) & 0xff;
    }
  }
  return out.subarray(0, length);
}

/** Bytes as Latin-1 text (one character per byte). */
function latin1(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let out = "";
  for (let i = start; i < end; i += 8192) out += String.fromCharCode(...bytes.subarray(i, Math.min(end, i + 8192)));
  return out;
}

/** The leading bytes of an image or document given inline (base64, data URL, bytes), or undefined. */
function inlineBytes(part: Record<string, unknown>, limit: number): Uint8Array | undefined {
  const fromString = (value: string): Uint8Array | undefined => {
    const data = value.startsWith("data:") ? value.slice(value.indexOf(",") + 1) : /^(https?|file):/.test(value) ? undefined : value;
    if (data === undefined) return undefined;
    return decodeBase64(limit > 0 ? data.slice(0, Math.ceil(limit / 3) * 4) : data);
  };
  const candidates: unknown[] = [];
  if (isRecord(part.source)) candidates.push(part.source.data); // Anthropic { source: { type: "base64", data } }
  if (isRecord(part.image_url)) candidates.push(part.image_url.url); // OpenAI
  candidates.push(part.image, part.data, part.image_url); // AI SDK
  for (const candidate of candidates) {
    if (typeof candidate === "string" && candidate.length > 0) return fromString(candidate);
    if (candidate instanceof Uint8Array)
      return new Uint8Array(
        candidate.buffer,
        candidate.byteOffset,
        limit > 0 ? Math.min(limit, candidate.byteLength) : candidate.byteLength,
      );
    if (candidate instanceof ArrayBuffer)
      return new Uint8Array(candidate, 0, limit > 0 ? Math.min(limit, candidate.byteLength) : candidate.byteLength);
  }
  return undefined;
}

/** Width and height from a PNG, GIF, WebP or JPEG header, or undefined. */
export function imageSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length >= 24 && view.getUint32(0) === 0x89504e47) return { width: view.getUint32(16), height: view.getUint32(20) };
  if (bytes.length >= 10 && latin1(bytes, 0, 4) === "GIF8") return { width: view.getUint16(6, true), height: view.getUint16(8, true) };
  if (bytes.length >= 30 && latin1(bytes, 0, 4) === "RIFF" && latin1(bytes, 8, 12) === "WEBP") {
    const chunk = latin1(bytes, 12, 16);
    if (chunk === "VP8 ") return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
    if (chunk === "VP8L") {
      const bits = view.getUint32(21, true);
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    }
    if (chunk === "VP8X")
      return {
        width: 1 + (view.getUint16(24, true) | (view.getUint8(26) << 16)),
        height: 1 + (view.getUint16(27, true) | (view.getUint8(29) << 16)),
      };
    return undefined;
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    let i = 2;
    while (i + 9 < bytes.length) {
      if (bytes[i] !== 0xff) return undefined;
      const marker = bytes[i + 1] as number;
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: view.getUint16(i + 7), height: view.getUint16(i + 5) };
      }
      i += 2 + view.getUint16(i + 2);
    }
  }
  return undefined;
}

/** An image part's tokens: by its size where the bytes are inline, else the family's largest image. */
export function claudeImageTokens(part: Record<string, unknown> | undefined, family: ClaudeFamily): number {
  const bytes = part ? inlineBytes(part, 256 * 1024) : undefined;
  const size = bytes ? imageSize(bytes) : undefined;
  if (!size || size.width <= 0 || size.height <= 0) return claudeUnknownImageTokens(family);
  return claudeImageTokensFor(size.width, size.height, family);
}

/** Pages of an inline PDF (its /Type /Page objects), or undefined when the bytes are not inline. */
function pdfPages(part: Record<string, unknown>): number | undefined {
  const bytes = inlineBytes(part, 0);
  if (!bytes) return undefined;
  const matches = latin1(bytes).match(/\/Type\s*\/Page(?![a-zA-Z])/g);
  return Math.max(1, matches ? matches.length : 0);
}

/** The tool-use system prompt Anthropic adds when a request carries tools (its published table). */
export function claudeToolPromptTokens(
  model: string | undefined,
  family: ClaudeFamily,
  toolChoice: CountMessagesOptions["toolChoice"],
): number {
  const choice = typeof toolChoice === "object" && toolChoice !== null ? toolChoice.type : toolChoice;
  if (choice !== undefined && !["auto", "any", "tool", "none"].includes(choice)) {
    throw rangeError(`options.toolChoice must be "auto", "any", "tool" or "none", got ${describe(toolChoice)}`);
  }
  const id = (model ?? "").toLowerCase();
  let auto: number;
  let any: number;
  if (family !== "v3") {
    // Unpublished for the v4.7 vocabulary, which spends up to a third more tokens on the same text:
    // 346 x 1.6, rounded up, for either choice.
    auto = any = 560;
  } else if (/claude-3-opus/.test(id)) {
    [auto, any] = [530, 281];
  } else if (/claude-3-sonnet/.test(id)) {
    [auto, any] = [159, 235];
  } else if (/claude-3-(5-)?haiku/.test(id)) {
    [auto, any] = [264, 340];
  } else {
    [auto, any] = [346, 313]; // Claude 3.5 Sonnet, 3.7 Sonnet and the Claude 4 models
  }
  if (choice === undefined) return Math.max(auto, any);
  return choice === "auto" || choice === "none" ? auto : any;
}

/** A Tally that also charges Anthropic's margin for every content block after a message's first. */
class ClaudeTally extends Tally {
  private blocks = 0;
  block(): void {
    if (this.blocks++ > 0) this.fixed += CLAUDE_REQUEST_MARGINS.extraBlock;
  }
}

function claudeVisitor(tally: ClaudeTally, family: ClaudeFamily, imageTokens: number | undefined): MessageVisitor {
  const visitor: MessageVisitor = {
    text: (value) => {
      tally.block();
      tally.text(value);
    },
    image: (part) => {
      tally.block();
      tally.fixed += imageTokens ?? claudeImageTokens(part, family);
    },
    document: (part) => {
      tally.block();
      const source = isRecord(part.source) ? part.source : undefined;
      tally.text(part.title);
      tally.text(part.context);
      if (source?.type === "text") return tally.text(source.data);
      if (source?.type === "content" && Array.isArray(source.content)) {
        for (const block of source.content) visitToolOutput([block], visitor);
        return;
      }
      // A PDF: every page is read as text and as an image. A PDF given by URL or file id cannot be
      // paged offline and is charged as one page.
      const pages = pdfPages(part) ?? 1;
      tally.fixed += pages * (CLAUDE_REQUEST_MARGINS.documentPageText + claudeUnknownImageTokens(family));
    },
    toolCall: (id, name, args) => {
      tally.block();
      tally.fixed += CLAUDE_REQUEST_MARGINS.toolUse;
      tally.text(id);
      tally.text(name);
      tally.text(typeof args === "string" ? args : (JSON.stringify(args ?? {}) ?? ""));
    },
    toolResult: (id, output) => {
      tally.block();
      tally.fixed += CLAUDE_REQUEST_MARGINS.toolResult;
      tally.text(id);
      visitToolOutput(output, visitor);
    },
  };
  return visitor;
}

/** A tool definition as Anthropic receives it: name, description and input schema. */
function anthropicTool(tool: ToolDefinition, index: number): Record<string, unknown> {
  if (!isRecord(tool)) throw typeError(`options.tools[${index}] must be a tool definition, got ${describe(tool)}`);
  if (isRecord(tool.function)) {
    const fn = tool.function;
    if (typeof fn.name !== "string") throw typeError(`options.tools[${index}].function.name must be a string`);
    return { name: fn.name, description: fn.description, input_schema: fn.parameters };
  }
  if (typeof tool.name !== "string") throw typeError(`options.tools[${index}] must be a tool definition with a name`);
  return tool as Record<string, unknown>;
}

export interface ClaudeFrame {
  family: ClaudeFamily;
  model: string | undefined;
  /** Tokens of a one-message request beyond its content (7, 11 or 6). */
  messageOverhead: number;
}

export interface ClaudeRequestCount {
  /** Each message's tokens, its frame included. */
  perMessage: Uint32Array;
  /** The system prompt, tool definitions and tool-use system prompt. */
  rest: number;
  total: number;
}

/** Counts a Claude request, every string of it in one call of `countMany`. */
export function countClaudeRequest(
  countMany: (texts: string[]) => ArrayLike<number>,
  frame: ClaudeFrame,
  messages: readonly MessageLike[],
  options: CountMessagesOptions = {},
): ClaudeRequestCount {
  if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
  if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
  const imageTokens = options.imageTokens;
  if (imageTokens !== undefined && (!Number.isInteger(imageTokens) || imageTokens < 0)) {
    throw rangeError(`options.imageTokens must be an integer >= 0, got ${describe(imageTokens)}`);
  }
  const tallies = messages.map((given, index) => {
    const message = chatMessageOf(given, `messages[${index}]`);
    if (!isRecord(message)) throw typeError(`messages[${index}] must be a message object, got ${describe(message)}`);
    roleOf(message, `messages[${index}]`); // a Responses item is read by what it holds, as any message
    // The measured frame of one message; a message after the first is charged a whole frame too,
    // which is more than the turn markers it adds.
    const tally = new ClaudeTally();
    tally.fixed += frame.messageOverhead;
    visitMessage(message as Record<string, unknown>, claudeVisitor(tally, frame.family, imageTokens));
    return tally;
  });
  const rest = new ClaudeTally();
  if (options.system !== undefined) {
    const text = typeof options.system === "string" ? options.system : systemBlocksText(options.system);
    if (text.length > 0) {
      rest.fixed += frame.messageOverhead;
      rest.text(text);
    }
  }
  if (options.tools !== undefined) {
    if (!Array.isArray(options.tools)) throw typeError(`options.tools must be an array, got ${describe(options.tools)}`);
    rest.fixed += claudeToolPromptTokens(frame.model, frame.family, options.toolChoice);
    options.tools.forEach((tool, index) => {
      rest.fixed += CLAUDE_REQUEST_MARGINS.toolDefinition;
      rest.text(JSON.stringify(anthropicTool(tool, index)));
    });
  }
  const counted = countTallies(countMany, tallies, rest);
  const perMessage = Uint32Array.from(counted.each);
  let total = 0;
  for (const tokens of perMessage) total += tokens;
  return { perMessage, rest: counted.rest, total: total + counted.rest };
}
