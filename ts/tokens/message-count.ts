// Counting a chat request: message shapes are detected here, in one place, and every string of the
// request is counted in one batch.
import { describe, rangeError, typeError } from "../runtime/errors.js";
import type { EncodingName } from "./encodings.js";
import type { CountMessagesOptions } from "./token-counter.js";
import type { FunctionDefinition, MessageLike, ToolDefinition } from "../messages/types.js";
import { chatMessageOf } from "../messages/langchain-shape.js";
import { checkJsonValue, checkMessage, isCheckedBatch, isRecord, responsesItemRole, visitMessage, visitToolOutput, type MessageVisitor } from "../messages/message-shape.js";

/** Per-request overheads of OpenAI chat models. */
export interface ChatOverheads {
  /** Every message is wrapped as <|start|>{role/name}\n{content}<|end|>\n: 3 tokens (OpenAI Cookbook, "How to count tokens with tiktoken"). */
  perMessage: number;
  /** A `name` field adds 1 token (same source). */
  perName: number;
  /** Every reply is primed with <|start|>assistant<|message|>: 3 tokens (same source). */
  replyPriming: number;
  /** Tool-definition formula constants (OpenAI Cookbook, same notebook, section 6 "tool calls"). */
  functionInit: number;
  propertyInit: number;
  propertyKey: number;
  enumInit: number;
  enumItem: number;
  functionEnd: number;
}

export function chatOverheads(encoding: EncodingName): ChatOverheads {
  return {
    perMessage: 3,
    perName: 1,
    replyPriming: 3,
    // The cookbook gives 7 for gpt-4o / gpt-4o-mini (o200k_base) and 10 for gpt-3.5-turbo / gpt-4 (cl100k_base).
    functionInit: encoding === "o200k_base" ? 7 : 10,
    propertyInit: 3,
    propertyKey: 3,
    enumInit: -3,
    enumItem: 3,
    functionEnd: 12,
  };
}

/**
 * Tokens for one tool call inside an assistant message beyond its name and arguments. OpenAI
 * publishes no figure for this; 3 is ctxwin's estimate (the call's own framing tokens).
 */
const TOOL_CALL_OVERHEAD = 3;
/** OpenAI vision pricing: 85 base + 170 per 512 px tile; a 1024x1024 image at high detail is 4 tiles. */
export const DEFAULT_IMAGE_TOKENS = 765;

/** A request (or one message of it) reduced to the strings to count and a number of fixed tokens. */
export class Tally {
  readonly texts: string[] = [];
  fixed = 0;
  text(value: unknown): void {
    if (typeof value === "string" && value.length > 0) this.texts.push(value);
    else if (value !== undefined && value !== null && typeof value !== "string") this.texts.push(JSON.stringify(value) ?? "");
  }
}

/** Counts what a message holds: text into the tally, images and tool-call framing as fixed tokens. */
function tallyVisitor(tally: Tally, imageTokens: number): MessageVisitor {
  const visitor: MessageVisitor = {
    text: (value) => tally.text(value),
    image: () => {
      tally.fixed += imageTokens;
    },
    toolCall: (_id, name, args) => {
      tally.fixed += TOOL_CALL_OVERHEAD;
      tally.text(name);
      tally.text(args);
    },
    toolResult: (_id, output) => visitToolOutput(output, visitor),
  };
  return visitor;
}

/** Reads one message into `tally`; `checked`: it was checked already (a CHECKED batch), and is not again. */
function readMessage(message: unknown, index: number, tally: Tally, overheads: ChatOverheads, imageTokens: number, checked: boolean): void {
  const record = chatMessageOf(message, `messages[${index}]`) as Record<string, unknown>;
  if (!checked) checkMessage(record, `messages[${index}]`);
  const item = responsesItemRole(record);
  tally.fixed += overheads.perMessage;
  tally.text(item === undefined ? record.role : record.type);
  visitMessage(record, tallyVisitor(tally, imageTokens));
  if (typeof record.name === "string") {
    tally.fixed += overheads.perName;
    tally.text(record.name);
  }
}

function functionOf(tool: ToolDefinition, index: number): FunctionDefinition {
  const at = `options.tools[${index}]`;
  if (tool === null || typeof tool !== "object" || Array.isArray(tool)) throw typeError(`${at} must be a tool definition object, got ${describe(tool)}`);
  const fn = tool.function ?? (typeof tool.name === "string" ? (tool as FunctionDefinition) : undefined);
  if (!fn || typeof fn !== "object" || typeof fn.name !== "string") throw typeError(`${at} must be a function tool definition with a name`);
  if (fn.description !== undefined && typeof fn.description !== "string") throw typeError(`${at}.description must be a string, got ${describe(fn.description)}`);
  const properties: unknown = fn.parameters?.properties;
  if (fn.parameters !== undefined && (fn.parameters === null || typeof fn.parameters !== "object")) throw typeError(`${at}.parameters must be an object, got ${describe(fn.parameters)}`);
  if (properties !== undefined) {
    if (properties === null || typeof properties !== "object" || Array.isArray(properties)) throw typeError(`${at}.parameters.properties must be an object, got ${describe(properties)}`);
    for (const [key, property] of Object.entries(properties)) {
      if (property === null || typeof property !== "object" || Array.isArray(property)) throw typeError(`${at}.parameters.properties.${key} must be an object, got ${describe(property)}`);
      const { description, enum: values } = property as { description?: unknown; enum?: unknown };
      if (description !== undefined && typeof description !== "string") throw typeError(`${at}.parameters.properties.${key}.description must be a string, got ${describe(description)}`);
      if (values !== undefined) checkJsonValue(values, `${at}.parameters.properties.${key}.enum`);
    }
  }
  return fn;
}

/** OpenAI Cookbook's num_tokens_for_tools: strings go to the tally, constants to its fixed part. */
function readTools(tools: readonly ToolDefinition[], tally: Tally, o: ChatOverheads): void {
  if (tools.length === 0) return;
  tools.forEach((tool, index) => {
    const fn = functionOf(tool, index);
    tally.fixed += o.functionInit;
    tally.texts.push(`${fn.name}:${(fn.description ?? "").replace(/\.$/, "")}`);
    const properties = fn.parameters?.properties ?? {};
    const keys = Object.keys(properties);
    if (keys.length > 0) {
      tally.fixed += o.propertyInit;
      for (const key of keys) {
        const property = properties[key] ?? {};
        tally.fixed += o.propertyKey;
        if (Array.isArray(property.enum)) {
          tally.fixed += o.enumInit;
          for (const item of property.enum) {
            tally.fixed += o.enumItem;
            tally.texts.push(String(item));
          }
        }
        tally.texts.push(`${key}:${String(property.type ?? "")}:${(property.description ?? "").replace(/\.$/, "")}`);
      }
    }
  });
  tally.fixed += o.functionEnd;
}

/** The text of a system prompt given as text blocks (Anthropic's `system: [{ type: "text", text }]`). */
export function systemBlocksText(system: unknown): string {
  if (!Array.isArray(system)) throw typeError(`options.system must be a string or an array of text blocks, got ${describe(system)}`);
  return system
    .map((block: unknown, i) => {
      if (!isRecord(block) || typeof block.text !== "string") throw typeError(`options.system[${i}] must be a text block { type: "text", text }`);
      return block.text;
    })
    .join("\n");
}

/** Counts a request with `countMany`, which sees every string of it in one call. */
export function countMessagesWith(
  countMany: (texts: string[]) => ArrayLike<number>,
  overheads: ChatOverheads,
  messages: readonly MessageLike[],
  options: CountMessagesOptions = {},
): number {
  const { perMessage, tools } = countEachMessageWith(countMany, overheads, messages, options);
  let total = tools + overheads.replyPriming;
  for (let i = 0; i < perMessage.length; i++) total += perMessage[i] as number;
  return total;
}

/**
 * Each message's tokens (structure overhead included, reply priming not) and the tools' tokens,
 * with every string of the request counted in one call of `countMany`.
 */
export function countEachMessageWith(
  countMany: (texts: string[]) => ArrayLike<number>,
  overheads: ChatOverheads,
  messages: readonly MessageLike[],
  options: CountMessagesOptions = {},
): { perMessage: Uint32Array; tools: number } {
  if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
  if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
  const imageTokens = options.imageTokens ?? DEFAULT_IMAGE_TOKENS;
  if (!Number.isInteger(imageTokens) || imageTokens < 0) throw rangeError(`options.imageTokens must be an integer >= 0, got ${describe(imageTokens)}`);
  // One tally per message and one for the tools, flattened for a single countMany call.
  const checked = isCheckedBatch(messages);
  const tallies = messages.map((message, index) => {
    const tally = new Tally();
    readMessage(message, index, tally, overheads, imageTokens, checked);
    return tally;
  });
  const toolTally = new Tally();
  if (options.system !== undefined) {
    // A system prompt passed beside the messages counts as a system message.
    const content = typeof options.system === "string" ? options.system : systemBlocksText(options.system);
    readMessage({ role: "system", content }, -1, toolTally, overheads, imageTokens, false);
  }
  if (options.tools !== undefined) {
    if (!Array.isArray(options.tools)) throw typeError(`options.tools must be an array, got ${describe(options.tools)}`);
    readTools(options.tools, toolTally, overheads);
  }
  const { each, rest } = countTallies(countMany, tallies, toolTally);
  const perMessage = Uint32Array.from(each, (tokens) => Math.max(0, tokens));
  return { perMessage, tools: rest };
}

/**
 * The tokens of each tally and of `rest` (what belongs to no message: tools, ...), with every
 * string of them counted in one `countMany` call.
 */
export function countTallies(countMany: (texts: string[]) => ArrayLike<number>, tallies: readonly Tally[], rest: Tally): { each: number[]; rest: number } {
  const texts: string[] = [];
  for (const tally of tallies) for (const text of tally.texts) texts.push(text);
  for (const text of rest.texts) texts.push(text);
  const counts = countMany(texts);
  let cursor = 0;
  const take = (tally: Tally) => {
    let total = tally.fixed;
    for (let k = 0; k < tally.texts.length; k++) total += counts[cursor++] as number;
    return total;
  };
  const each = tallies.map(take);
  return { each, rest: take(rest) };
}
