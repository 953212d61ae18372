// What the truncation planner needs to know of each message (role, flags, tool unit), read from
// the caller's messages one at a time: any of the shapes message-shape.ts knows, tool calls joined
// with their results and with the reasoning before them into units.
import { describe, typeError } from "../runtime/errors.js";
import { ROLE_CODES, ROLE_NAMES, type KnownRole } from "./roles.js";
import { checkMessage, isRecord, responsesItemRole, visitMessage, type MessageVisitor } from "./message-shape.js";
import { isLangChainMessage, langChainView } from "./langchain-shape.js";
import { checkToolLinks } from "./tool-links.js";

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
  /**
   * Ids of the tool calls it makes that wait for results in later messages, and of the earlier
   * calls whose results it holds (a call answered in its own message is in neither).
   */
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
    const shortcut = shortcutOf(original);
    if (shortcut !== undefined)
      return shortcut.ids === undefined
        ? this.textOnly(original as object, shortcut.role)
        : this.join(index, shortcut.role, undefined, this.flagsOf(original as object), shortcut.ids);
    if (!isRecord(original) || Array.isArray(original))
      throw typeError(`messages[${index}] must be a message object, got ${describe(original)}`);
    // A LangChain message is read through its chat view; pins and marks are the caller's object's.
    const at = `messages[${index}]`;
    const langChain = isLangChainMessage(original);
    const message = langChain ? langChainView(original, at) : original;
    checkMessage(message, at);
    const itemRole = responsesItemRole(message);
    if (itemRole === undefined) checkToolLinks(message, at, langChain);
    const role = (itemRole ?? message.role) as string;
    if (!Object.hasOwn(ROLE_CODES, role))
      throw typeError(`messages[${index}].role must be one of ${ROLE_NAMES.join(", ")}, got ${describe(role)}`);
    const content = message.content;
    if (message.type === "reasoning" && itemRole !== undefined) {
      // A unit of its own, which the items that follow join.
      return { role: ROLE_CODES.assistant, flags: this.flagsOf(original), unit: -1, orphan: false, calls: [], fresh: true, after: "unit" };
    }
    // Most messages are plain text: no parts to look through for tool calls or results.
    if (
      itemRole === undefined &&
      typeof content !== "object" &&
      message.tool_calls === undefined &&
      message.tool_call_id === undefined &&
      message.function_call === undefined &&
      role !== "function"
    )
      return this.textOnly(original, role as KnownRole);
    const ids: ToolIds = { calls: [], results: [], linkCalls: [], linkResults: [], anonymousResult: false };
    const visitor: MessageVisitor = {
      text: () => {},
      image: () => {},
      toolCall: (id) => {
        if (id !== undefined) ids.calls.push(id);
      },
      toolResult: (id) => {
        if (id !== undefined) ids.results.push(id);
        else ids.anonymousResult = true;
      },
      link: (id, kind) => (kind === "call" ? ids.linkCalls : ids.linkResults).push(id),
    };
    visitMessage(message, visitor);
    return this.join(index, role as KnownRole, itemRole, this.flagsOf(original), ids);
  }

  /**
   * The facts of a checked message from the tool ids it holds: the unit its results join (their
   * call's), or the one its calls open, or the reasoning item's before it.
   */
  private join(index: number, role: KnownRole, itemRole: string | undefined, flags: number, ids: ToolIds): PendingFacts {
    const { calls, results, linkCalls, linkResults } = ids;
    // Only an assistant's message or item may join a reasoning item before it.
    const pending = role === "assistant" ? this.reasoningUnit : -1;
    let unit = -1;
    let orphan = false;
    // A result whose call is in the same message (an AI SDK provider-executed tool, a hosted
    // Responses tool, an Anthropic server tool) is answered there.
    const elsewhere = without(results, calls);
    if (elsewhere.length > 0) {
      const found = this.unitOfFirst(elsewhere);
      if (found === undefined) {
        if ((this.options.orphanToolResults ?? "error") === "error") {
          throw typeError(
            `messages[${index}] is a result of tool call "${elsewhere[0] ?? ""}", whose call is not in the messages; ` +
              `pass orphanToolResults: "drop" to remove such results`,
            "ERR_CTXWIN_ORPHAN_TOOL_RESULT",
          );
        }
        orphan = true;
      } else {
        unit = found;
      }
    }
    // An approval's answer, a legacy function's result: with what it answers when that is there.
    if (unit < 0 && !orphan) unit = this.unitOfFirst(linkResults) ?? -1;
    // A message holding results of earlier calls reads as a tool message; one whose results all
    // answer its own calls is what the model produced (its role stays).
    const hasResult = elsewhere.length > 0 || ids.anonymousResult;
    let fresh = false;
    let after = -1;
    const opens = linkCalls.length === 0 ? calls : [...calls, ...linkCalls];
    if (opens.length > 0) {
      if (unit < 0 && pending >= 0) unit = pending;
      fresh = unit < 0;
      // Parallel call items of one response stay with the reasoning before them.
      after = itemRole === "assistant" && pending >= 0 ? pending : -1;
    } else if (!hasResult && role === "assistant" && pending >= 0) {
      unit = pending; // the assistant message a reasoning item precedes
    }
    // The calls left open (waiting for results in later messages) and the results of earlier calls.
    const open = without(calls, results);
    // Literals, not spreads: V8 copies an object spread or rest property by property through the
    // runtime, and this runs for every message of every plan (most of a plan of 1,000 messages).
    return {
      role: hasResult ? ROLE_CODES.tool : ROLE_CODES[role],
      flags,
      unit,
      orphan,
      callIds: open,
      resultIds: elsewhere,
      calls: opens,
      fresh,
      after,
    };
  }

  /** The unit of the first of `ids` whose call was read, or undefined. */
  private unitOfFirst(ids: readonly string[]): number | undefined {
    for (const id of ids) {
      const unit = this.unitOfCall.get(id);
      if (unit !== undefined) return unit;
    }
    return undefined;
  }

  /** A message's flags: marked when the caller pinned it (by `_preserve` or through the API). */
  private flagsOf(original: object): number {
    const marked = (original as { _preserve?: unknown })._preserve === true || this.options.pinned?.has(original) === true;
    return marked ? FLAG_MARKED : 0;
  }

  /** The facts of a message of text alone: no tool call or result, so no unit but the reasoning an assistant's joins. */
  private textOnly(original: object, role: KnownRole): PendingFacts {
    return {
      role: ROLE_CODES[role],
      flags: this.flagsOf(original),
      // Only an assistant's message may join a reasoning item before it.
      unit: role === "assistant" ? this.reasoningUnit : -1,
      orphan: false,
      calls: [],
      fresh: false,
      after: -1,
    };
  }

  /** Remembers what inspect() found: a new unit, the calls results will join, the reasoning item pending. */
  commit(pending: PendingFacts): MessageFacts {
    const { calls, after } = pending;
    const unit = pending.fresh ? this.nextUnit++ : pending.unit;
    for (const id of calls) this.unitOfCall.set(id, unit);
    this.reasoningUnit = after === "unit" ? unit : after;
    let flags = pending.flags;
    if (pending.role === ROLE_CODES.user && !this.userSeen) {
      this.userSeen = true;
      if (this.options.pinFirstUserMessage === true) flags |= FLAG_MARKED;
    }
    const facts: MessageFacts = { role: pending.role, flags, unit, orphan: pending.orphan };
    if (pending.callIds !== undefined) facts.callIds = pending.callIds;
    if (pending.resultIds !== undefined) facts.resultIds = pending.resultIds;
    return facts;
  }
}

/** The tool-call ids a message holds, as visitMessage reports them. */
interface ToolIds {
  /** Ids of the calls it makes. */
  calls: string[];
  /** Ids of the calls whose results it holds. */
  results: string[];
  /** Links that stand for an id (a legacy function call by name, an approval): calls, then results. */
  linkCalls: string[];
  linkResults: string[];
  /** It holds a result that names no call. */
  anonymousResult: boolean;
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

/**
 * `ids` less those in `drop`, in order; `ids` itself when there is nothing to drop. A message
 * makes one call or a few, so a Set is built only past a handful (it was most of the cost of
 * reading a tool call or result).
 */
function without(ids: string[], drop: readonly string[]): string[] {
  if (drop.length === 0 || ids.length === 0) return ids;
  if (drop.length <= 8) return ids.filter((id) => !drop.includes(id));
  const dropped = new Set(drop);
  return ids.filter((id) => !dropped.has(id));
}

/** A message inspect() reads without its checks: its role, and its tool ids when it has any. */
interface Shortcut {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  ids?: ToolIds;
}

/**
 * The shortcut for a message of one of the shapes most are, or undefined for any other value: text
 * alone (`{ role, content }`, a string or no content), an OpenAI tool result (`{ role: "tool",
 * tool_call_id, content: string }`) or an assistant's message of function calls (`tool_calls` of
 * `{ id, function: { name, arguments: string } }`, the content a string or none), each with nothing
 * else inspect() checks (no item type, no legacy function_call, a string name if any, not a
 * LangChain message). Such a message passes every check inspect() makes and holds exactly these
 * ids, so it is read without the checks and the walk over its shape: a plan over a caller's
 * thousands of messages spent a third of its time there. test/ts/messages/reader-shortcuts.test.ts
 * holds every shortcut to the checked path.
 */
function shortcutOf(value: unknown): Shortcut | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const message = value as Record<string, unknown>;
  const role = message.role;
  if (role !== "user" && role !== "assistant" && role !== "system" && role !== "developer" && role !== "tool") return undefined;
  if (message.function_call !== undefined || message.type !== undefined) return undefined;
  if (message.name !== undefined && typeof message.name !== "string") return undefined;
  const { content, tool_calls: toolCalls, tool_call_id: answers } = message;
  let ids: ToolIds | undefined;
  if (role === "tool") {
    if (typeof answers !== "string" || typeof content !== "string" || toolCalls !== undefined) return undefined;
    ids = { calls: [], results: [answers], linkCalls: [], linkResults: [], anonymousResult: false };
  } else if (answers !== undefined) {
    return undefined;
  } else if (toolCalls === undefined) {
    if (typeof content !== "string" && content !== undefined) return undefined;
  } else {
    if (role !== "assistant" || (typeof content !== "string" && content !== null && content !== undefined)) return undefined;
    const calls = functionCallIds(toolCalls);
    if (calls === undefined) return undefined;
    ids = { calls, results: [], linkCalls: [], linkResults: [], anonymousResult: false };
  }
  return isLangChainMessage(message) ? undefined : { role, ids };
}

/** The ids of `tool_calls` when every one is `{ id, function: { name, arguments } }` of strings; else undefined. */
function functionCallIds(toolCalls: unknown): string[] | undefined {
  if (!Array.isArray(toolCalls)) return undefined;
  const ids: string[] = [];
  for (const call of toolCalls as unknown[]) {
    if (typeof call !== "object" || call === null || Array.isArray(call)) return undefined;
    const { id, function: fn } = call as { id?: unknown; function?: unknown };
    if (typeof id !== "string" || typeof fn !== "object" || fn === null || Array.isArray(fn)) return undefined;
    const { name, arguments: args } = fn as { name?: unknown; arguments?: unknown };
    if (typeof name !== "string" || typeof args !== "string") return undefined;
    ids.push(id);
  }
  return ids;
}
