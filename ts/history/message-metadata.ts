// What the truncation planner needs to know of each message: role, tokens, flags and tool unit.
// Read from the caller's messages (any of the three shapes, through message-shape.ts) in one pass;
// the messages themselves never leave JavaScript.
import { describe, plainError, typeError } from "../runtime/errors.js";
import { isRecord, responsesItemRole, visitMessage, type MessageVisitor } from "../tokens/message-shape.js";
import type { BatchTokenCounter, MessageLike, TokenCounter } from "../tokens/token-counter.js";

export const ROLE_CODES = { system: 0, developer: 0, user: 1, assistant: 2, tool: 3, function: 3 } as const;
export type KnownRole = keyof typeof ROLE_CODES;
export const ROLE_NAMES = Object.keys(ROLE_CODES) as KnownRole[];
const TOOL = 3;
/** MessageMeta::kMarked in the core. */
export const FLAG_MARKED = 1;

export interface MessageMetadata {
  roles: Uint8Array;
  tokens: Uint32Array;
  flags: Uint8Array;
  units: Int32Array;
  /** Tool results whose call is not in the messages (when repairing, they are always removed). */
  orphans: number[];
}

export interface MetadataOptions {
  /** A tool result without its call: report it (`"error"`, the default) or drop it (`"drop"`). */
  orphanToolResults?: "error" | "drop";
  /** Messages pinned through the API (kept like system messages). */
  pinned?: ReadonlySet<object>;
}

/** Each message's tokens: in one batch when the counter can, else message by message. */
export function messageTokens(counter: TokenCounter, messages: readonly MessageLike[]): Uint32Array {
  const batch = counter as Partial<BatchTokenCounter>;
  if (typeof batch.countEachMessage === "function") return batch.countEachMessage(messages);
  const empty = counter.countMessages([]);
  return Uint32Array.from(messages, (message) => Math.max(0, counter.countMessages([message]) - empty));
}

/** One message's metadata. */
export interface MessageFacts {
  role: number;
  flags: number;
  /** Its tool unit, or -1. */
  unit: number;
  /** True for a tool result whose call was not seen. */
  orphan: boolean;
  /** Ids of the tool calls it makes and of the calls whose results it holds (when it has any). */
  callIds?: string[];
  resultIds?: string[];
}

/**
 * Reads messages one at a time, remembering tool-call ids so that results join their call's unit.
 * Used for whole arrays (describeMessages) and incrementally (MessageContextManager.addMessage).
 */
export class MetadataReader {
  private readonly unitOfCall = new Map<string, number>();
  private nextUnit = 0;
  /**
   * The unit of an OpenAI reasoning item, which the items after it (up to the next user, system
   * or tool-result item) join: OpenAI rejects a reasoning item without the item it precedes, and a
   * function_call without its reasoning.
   */
  private reasoningUnit = -1;

  constructor(private readonly options: MetadataOptions = {}) {}

  /** Checks and reads `message`; throws before remembering anything when it is invalid. */
  read(message: unknown, index: number): MessageFacts {
    if (!isRecord(message)) throw typeError(`messages[${index}] must be a message object, got ${describe(message)}`);
    const itemRole = responsesItemRole(message);
    const role = itemRole ?? message.role;
    if (typeof role !== "string" || !(role in ROLE_CODES)) {
      throw typeError(`messages[${index}].role must be one of ${ROLE_NAMES.join(", ")}, got ${describe(role)}`);
    }
    const content = message.content;
    if (content !== undefined && content !== null && typeof content !== "string" && !Array.isArray(content)) {
      throw typeError(`messages[${index}].content must be a string, an array of parts or null, got ${describe(content)}`);
    }
    const marked = (message as { _preserve?: unknown })._preserve === true || this.options.pinned?.has(message) === true;
    // Only an assistant's item may join a reasoning item before it (state changes only once valid).
    const pending = itemRole === undefined && role !== "assistant" ? -1 : this.reasoningUnit;
    if (message.type === "reasoning" && itemRole !== undefined) {
      // Joins nothing yet: the items that follow join it.
      this.reasoningUnit = this.nextUnit++;
      return { role: ROLE_CODES.assistant, flags: marked ? FLAG_MARKED : 0, unit: this.reasoningUnit, orphan: false };
    }
    // Most messages are plain text: no parts to look through for tool calls or results.
    if (itemRole === undefined && typeof content !== "object" && message.tool_calls === undefined && message.tool_call_id === undefined) {
      const unit = role === "assistant" ? pending : -1;
      this.reasoningUnit = -1;
      return { role: ROLE_CODES[role as KnownRole], flags: marked ? FLAG_MARKED : 0, unit, orphan: false };
    }
    const calls: string[] = [];
    const results: string[] = [];
    let hasResult = false;
    const visitor: MessageVisitor = {
      text: () => {},
      image: () => {},
      toolCall: (id) => {
        if (id !== undefined) calls.push(id);
      },
      toolResult: (id) => {
        hasResult = true;
        if (id !== undefined) results.push(id);
      },
    };
    visitMessage(message, visitor);
    let unit = -1;
    let orphan = false;
    if (results.length > 0) {
      const found = results.map((id) => this.unitOfCall.get(id)).find((u) => u !== undefined);
      if (found === undefined) {
        if ((this.options.orphanToolResults ?? "error") === "error") {
          throw Object.assign(
            typeError(
              `messages[${index}] is a result of tool call "${results[0] ?? ""}", whose call is not in the messages; ` +
                `pass orphanToolResults: "drop" to remove such results`,
            ),
            { code: "ERR_CTXWIN_ORPHAN_TOOL_RESULT" },
          );
        }
        orphan = true;
      } else {
        unit = found;
      }
    }
    if (calls.length > 0) {
      unit = unit >= 0 ? unit : pending >= 0 ? pending : this.nextUnit++;
      for (const id of calls) this.unitOfCall.set(id, unit);
      // Parallel function_call items of one response stay with the reasoning before them.
      this.reasoningUnit = message.type === "function_call" && pending >= 0 ? pending : -1;
    } else if (!hasResult && role === "assistant" && pending >= 0) {
      unit = pending; // the assistant message a reasoning item precedes
      this.reasoningUnit = -1;
    } else {
      this.reasoningUnit = -1;
    }
    return { role: hasResult ? TOOL : ROLE_CODES[role as KnownRole], flags: marked ? FLAG_MARKED : 0, unit, orphan, callIds: calls, resultIds: results };
  }
}

export function describeMessages(messages: readonly MessageLike[], counter: TokenCounter, options: MetadataOptions = {}): MessageMetadata {
  if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
  const n = messages.length;
  const roles = new Uint8Array(n);
  const flags = new Uint8Array(n);
  const units = new Int32Array(n);
  const orphans: number[] = [];
  const reader = new MetadataReader(options);
  messages.forEach((message, i) => {
    const facts = reader.read(message, i);
    roles[i] = facts.role;
    flags[i] = facts.flags;
    units[i] = facts.unit;
    if (facts.orphan) orphans.push(i);
  });
  const tokens = messageTokens(counter, messages);
  if (tokens.length !== n) throw plainError("the counter returned a token count per message of the wrong length", "ERR_CTXWIN_INVALID_ARGUMENT");
  return { roles, tokens, flags, units, orphans };
}
