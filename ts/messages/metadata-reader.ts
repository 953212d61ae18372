// What the truncation planner needs to know of each message (role, flags, tool unit), read from
// the caller's messages one at a time: any of the shapes message-shape.ts knows, tool calls joined
// with their results and with the reasoning before them into units.
import { describe, typeError } from "../runtime/errors.js";
import { ROLE_CODES, ROLE_NAMES, type KnownRole } from "./roles.js";
import { checkMessage, isRecord, responsesItemRole, visitMessage, type MessageVisitor } from "./message-shape.js";
import { isLangChainMessage, langChainView } from "./langchain-shape.js";

/** MessageMeta::kMarked in the core. */
export const FLAG_MARKED = 1;

export interface MetadataOptions {
  /** A tool result without its call: report it (`"error"`, the default) or drop it (`"drop"`). */
  orphanToolResults?: "error" | "drop";
  /** Messages pinned through the API (kept like system messages). */
  pinned?: ReadonlySet<object>;
  /** The first user message read (the task, in the user's words) is pinned too. */
  pinFirstUserMessage?: boolean;
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
  /** Whether a user message was read (the first one is pinned when the options say so). */
  private userSeen = false;

  constructor(private readonly options: MetadataOptions = {}) {}

  /** Checks and reads `message`, and remembers what it opens; throws before remembering anything when it is invalid. */
  read(message: unknown, index: number): MessageFacts {
    return this.commit(this.inspect(message, index));
  }

  /**
   * Checks and reads `message` without remembering anything: a caller that may still fail after
   * reading (counting the message, say) commits only once nothing can fail any more.
   */
  inspect(original: unknown, index: number): PendingFacts {
    if (!isRecord(original) || Array.isArray(original)) throw typeError(`messages[${index}] must be a message object, got ${describe(original)}`);
    // A LangChain message is read through its chat view; pins and marks are the caller's object's.
    const message = isLangChainMessage(original) ? langChainView(original, `messages[${index}]`) : original;
    const itemRole = responsesItemRole(message);
    const role = itemRole ?? message.role;
    if (typeof role !== "string" || !Object.hasOwn(ROLE_CODES, role)) {
      throw typeError(`messages[${index}].role must be one of ${ROLE_NAMES.join(", ")}, got ${describe(role)}`);
    }
    checkMessage(message, `messages[${index}]`);
    const content = message.content;
    const marked = (original as { _preserve?: unknown })._preserve === true || this.options.pinned?.has(original) === true;
    const flags = marked ? FLAG_MARKED : 0;
    // Only an assistant's item may join a reasoning item before it.
    const pending = itemRole === undefined && role !== "assistant" ? -1 : this.reasoningUnit;
    if (message.type === "reasoning" && itemRole !== undefined) {
      // A unit of its own, which the items that follow join.
      return { role: ROLE_CODES.assistant, flags, unit: -1, orphan: false, calls: [], fresh: true, after: "unit" };
    }
    // Most messages are plain text: no parts to look through for tool calls or results.
    if (itemRole === undefined && typeof content !== "object" && message.tool_calls === undefined && message.tool_call_id === undefined) {
      return { role: ROLE_CODES[role as KnownRole], flags, unit: role === "assistant" ? pending : -1, orphan: false, calls: [], fresh: false, after: -1 };
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
    let fresh = false;
    let after = -1;
    if (calls.length > 0) {
      if (unit < 0 && pending >= 0) unit = pending;
      fresh = unit < 0;
      // Parallel function_call items of one response stay with the reasoning before them.
      after = message.type === "function_call" && pending >= 0 ? pending : -1;
    } else if (!hasResult && role === "assistant" && pending >= 0) {
      unit = pending; // the assistant message a reasoning item precedes
    }
    const facts = { role: hasResult ? ROLE_CODES.tool : ROLE_CODES[role as KnownRole], flags, unit, orphan, callIds: calls, resultIds: results };
    return { ...facts, calls, fresh, after };
  }

  /** Remembers what inspect() found: a new unit, the calls results will join, the reasoning item pending. */
  commit(pending: PendingFacts): MessageFacts {
    const { calls, fresh, after, ...facts } = pending;
    if (fresh) facts.unit = this.nextUnit++;
    for (const id of calls) this.unitOfCall.set(id, facts.unit);
    this.reasoningUnit = after === "unit" ? facts.unit : after;
    if (facts.role === ROLE_CODES.user && !this.userSeen) {
      this.userSeen = true;
      if (this.options.pinFirstUserMessage === true) facts.flags |= FLAG_MARKED;
    }
    return facts;
  }
}

/** What inspect() read of a message, with what commit() will remember. */
export interface PendingFacts extends MessageFacts {
  /** Tool-call ids that results will join the unit of. */
  calls: string[];
  /** The unit is a new one, numbered at commit. */
  fresh: boolean;
  /** The pending reasoning unit afterwards: a unit, -1 for none, "unit" for the message's own. */
  after: number | "unit";
}
