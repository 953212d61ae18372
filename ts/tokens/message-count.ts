// Counting a chat request: message shapes are detected here, in one place, and every string of the
// request is counted in one batch.
import { describe, rangeError, typeError } from "../runtime/errors.js";
import type { CountMessagesOptions } from "./token-counter.js";
import type { FunctionDefinition, MessageLike, ToolDefinition } from "../messages/types.js";
import { chatMessageOf, isLangChainMessage, langChainRole } from "../messages/langchain-shape.js";
import {
  checkMessage,
  isCheckedBatch,
  isRecord,
  responsesItemRole,
  visitMessage,
  visitToolOutput,
  type MessageVisitor,
} from "../messages/message-shape.js";
import {
  FUNCTION_DEFINITIONS_OVERHEAD,
  SYSTEM_WITH_FUNCTIONS_DEDUCTION,
  functionCallCost,
  functionOf,
  renderFunctions,
} from "./openai-functions.js";

/**
 * Per-message overheads of OpenAI chat models (OpenAI Cookbook, "How to count tokens with
 * tiktoken", and hmarr/openai-chat-tokens for function calling; the same for every encoding:
 * checked against the API's prompt_tokens in test/ts/tokens/openai-function-calling.test.ts).
 */
export const CHAT_OVERHEADS = {
  /** Every message is wrapped as <|start|>{role/name}\n{content}<|end|>\n: 3 tokens. */
  perMessage: 3,
  /** A `name` field adds 1 token. */
  perName: 1,
  /** A `role: "function"` message (a legacy function's result) costs 2 tokens less than others. */
  functionRoleDiscount: 2,
  /** Every reply is primed with <|start|>assistant<|message|>: 3 tokens. */
  replyPriming: 3,
  /**
   * Each call an assistant message makes, beyond its name and arguments: 3 (measured for the
   * legacy `function_call`; ctxwin charges the same for each of `tool_calls`).
   */
  toolCall: 3,
} as const;

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
      tally.fixed += CHAT_OVERHEADS.toolCall;
      tally.text(name);
      tally.text(args);
    },
    toolResult: (_id, output) => visitToolOutput(output, visitor),
  };
  return visitor;
}

/** How one message is read: checked already (a CHECKED batch) or not, and whether it is the system message function definitions join. */
interface ReadOptions {
  imageTokens: number;
  checked: boolean;
  joinsFunctions: boolean;
}

/** Reads one message into `tally`. */
function readMessage(message: unknown, index: number, tally: Tally, o: ReadOptions): void {
  let record = chatMessageOf(message, `messages[${index}]`) as Record<string, unknown>;
  if (!o.checked) checkMessage(record, `messages[${index}]`);
  // The API writes the function definitions after the first system message, on a line of their
  // own: a newline is added to its text when it has none at its end (hmarr/openai-chat-tokens).
  if (o.joinsFunctions) record = withTrailingNewline(record);
  const item = responsesItemRole(record);
  tally.fixed += CHAT_OVERHEADS.perMessage;
  if (record.role === "function") tally.fixed -= CHAT_OVERHEADS.functionRoleDiscount;
  tally.text(item === undefined ? record.role : record.type);
  visitMessage(record, tallyVisitor(tally, o.imageTokens));
  if (typeof record.name === "string" && item === undefined) {
    tally.fixed += CHAT_OVERHEADS.perName;
    tally.text(record.name);
  }
}

/** A view of a system message whose text ends with a newline (its last text part's, for parts). */
function withTrailingNewline(message: Record<string, unknown>): Record<string, unknown> {
  const content = message.content;
  if (typeof content === "string") return content === "" || content.endsWith("\n") ? message : { ...message, content: `${content}\n` };
  if (!Array.isArray(content)) return message;
  const last = content.findLastIndex(
    (part: unknown) => typeof part === "string" || (isRecord(part) && part.type === "text" && typeof part.text === "string"),
  );
  if (last < 0) return message;
  const part = content[last] as string | { text: string };
  const text = typeof part === "string" ? part : part.text;
  if (text === "" || text.endsWith("\n")) return message;
  const parts = content.slice();
  parts[last] = typeof part === "string" ? `${part}\n` : { ...part, text: `${text}\n` };
  return { ...message, content: parts };
}

/** Whether a message is a system message (a LangChain SystemMessage included), read without checking it. */
function isSystemMessage(message: unknown): boolean {
  if (!isRecord(message)) return false;
  if (message.role === "system") return true;
  if (message.role !== undefined || !isLangChainMessage(message)) return false;
  return langChainRole(message) === "system";
}

/** The function definitions of a request: its `tools` (function tools) and its legacy `functions`. */
function functionsOf(options: CountMessagesOptions): FunctionDefinition[] {
  const functions: FunctionDefinition[] = [];
  for (const key of ["tools", "functions"] as const) {
    const list: unknown = options[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw typeError(`options.${key} must be an array, got ${describe(list)}`);
    list.forEach((tool: ToolDefinition, i) => functions.push(functionOf(tool, `options.${key}[${i}]`)));
  }
  return functions;
}

/** The text of a system prompt given as text blocks (Anthropic's `system: [{ type: "text", text }]`). */
export function systemBlocksText(system: unknown): string {
  if (!Array.isArray(system)) throw typeError(`options.system must be a string or an array of text blocks, got ${describe(system)}`);
  return system
    .map((block: unknown, i) => {
      if (!isRecord(block) || typeof block.text !== "string")
        throw typeError(`options.system[${i}] must be a text block { type: "text", text }`);
      return block.text;
    })
    .join("\n");
}

/** Counts a request with `countMany`, which sees every string of it in one call. */
export function countMessagesWith(
  countMany: (texts: string[]) => ArrayLike<number>,
  messages: readonly MessageLike[],
  options: CountMessagesOptions = {},
): number {
  const { perMessage, tools } = countEachMessageWith(countMany, messages, options);
  let total = tools + CHAT_OVERHEADS.replyPriming;
  for (let i = 0; i < perMessage.length; i++) total += perMessage[i] as number;
  return total;
}

/**
 * Each message's tokens (structure overhead included, reply priming not) and the tokens of the rest
 * of the request (tool definitions, `function_call`, a `system` option), with every string of the
 * request counted in one call of `countMany`.
 */
export function countEachMessageWith(
  countMany: (texts: string[]) => ArrayLike<number>,
  messages: readonly MessageLike[],
  options: CountMessagesOptions = {},
): { perMessage: Uint32Array; tools: number } {
  if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
  if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
  const imageTokens = options.imageTokens ?? DEFAULT_IMAGE_TOKENS;
  if (!Number.isInteger(imageTokens) || imageTokens < 0)
    throw rangeError(`options.imageTokens must be an integer >= 0, got ${describe(imageTokens)}`);
  const functions = functionsOf(options);
  const call = functionCallCost(options.functionCall, "options.functionCall");
  const hasSystem = options.system !== undefined || messages.some(isSystemMessage);
  // The first system message is the one function definitions join (a `system` option comes first).
  const joining = functions.length === 0 || options.system !== undefined ? -1 : messages.findIndex(isSystemMessage);
  // One tally per message and one for the rest, flattened for a single countMany call.
  const checked = isCheckedBatch(messages);
  const tallies = messages.map((message, index) => {
    const tally = new Tally();
    readMessage(message, index, tally, { imageTokens, checked, joinsFunctions: index === joining });
    return tally;
  });
  const rest = new Tally();
  if (options.system !== undefined) {
    // A system prompt passed beside the messages counts as a system message.
    const content = typeof options.system === "string" ? options.system : systemBlocksText(options.system);
    readMessage({ role: "system", content }, -1, rest, { imageTokens, checked: false, joinsFunctions: functions.length > 0 });
  }
  if (functions.length > 0) {
    rest.texts.push(renderFunctions(functions));
    rest.fixed += FUNCTION_DEFINITIONS_OVERHEAD - (hasSystem ? SYSTEM_WITH_FUNCTIONS_DEDUCTION : 0);
  }
  rest.texts.push(...call.texts);
  rest.fixed += call.fixed;
  const { each, rest: restTokens } = countTallies(countMany, tallies, rest);
  const perMessage = Uint32Array.from(each, (tokens) => Math.max(0, tokens));
  return { perMessage, tools: restTokens };
}

/**
 * The tokens of each tally and of `rest` (what belongs to no message: tools, ...), with every
 * string of them counted in one `countMany` call.
 */
export function countTallies(
  countMany: (texts: string[]) => ArrayLike<number>,
  tallies: readonly Tally[],
  rest: Tally,
): { each: number[]; rest: number } {
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
