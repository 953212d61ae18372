// The tool exchanges of a managed history: which tool calls still wait for their results, which
// a trim cut off, and whether a reasoning item waits for the item it precedes.
//
// An automatic trim waits for open exchanges (unless the window itself is exceeded), so that it
// never drops a call whose results are still to come. When a trim past the window did cut into an
// exchange, what still comes of it (a result, a parallel call after its reasoning item) would
// stand alone, which providers reject: it is left out, with a warning.
import type { Logger } from "../runtime/logger.js";
import { consoleLogger } from "../runtime/logger.js";
import { MetadataReader, type MessageFacts, type PendingFacts } from "../messages/metadata-reader.js";
import type { MessageLike } from "../messages/types.js";
import { visitMessage } from "../messages/message-shape.js";

export class ToolExchanges {
  /** Reads each added message, remembering tool-call ids so that results join their call's unit. */
  private reader: MetadataReader;
  /** Tool calls still waiting for their results, each with the tool unit of the message that makes it. */
  private readonly pendingCalls = new Map<string, number>();
  /** Pending calls a trim past the window removed: their results are left out when they come. */
  private readonly trimmedCalls = new Set<string>();
  /**
   * Tool units a trim removed. An item that joins one later (a parallel function_call after its
   * reasoning item, a result) would stand alone, so it is left out too; any item outside a unit
   * ends the chance that one is still being built, and the set is emptied.
   */
  private readonly trimmedUnits = new TrimmedUnits();
  /** The last item is a reasoning item, waiting for the item it precedes. */
  private pendingReasoning = false;

  constructor(
    /** A tool result whose call is not in the history: reject it or leave it out with a warning. */
    private readonly orphanToolResults: "error" | "drop",
    private readonly logger: Logger | undefined,
    /** The first user message (the task) is pinned. */
    private readonly pinFirstUserMessage = false,
  ) {
    this.reader = new MetadataReader({ orphanToolResults, pinFirstUserMessage });
  }

  /** Whether a tool call waits for its results, or a reasoning item for the item it precedes. */
  get midExchange(): boolean {
    return this.pendingCalls.size > 0 || this.pendingReasoning;
  }

  /**
   * Checks and reads `message`, to be added at `index`, without remembering anything yet: returns
   * its facts to accept() once nothing can fail any more, or undefined when it is left out (a
   * result without its call, with orphanToolResults "drop"; the rest of an exchange a trim cut).
   */
  admit(message: MessageLike, index: number): PendingFacts | undefined {
    const pending = this.reader.inspect(message, index);
    const leftOut = this.leftOut(pending);
    if (leftOut === undefined) return pending;
    // Remembered all the same: what it opens (a call its results would join) is left out too.
    this.reader.commit(pending);
    (this.logger ?? consoleLogger).warn(`ctxwin: ${leftOut}`);
    return undefined;
  }

  /** Why the message read as `pending` is left out of the history, or undefined when it goes in. */
  private leftOut(pending: PendingFacts): string | undefined {
    // orphanToolResults: "drop": a result without its call never enters the history.
    if (pending.orphan) return "dropped a tool result whose call is not in the history";
    if (pending.unit >= 0 && this.trimmedUnits.has(pending.unit)) {
      // The rest of an exchange a trim past the window cut into: alone it would be invalid.
      for (const id of pending.callIds ?? []) this.trimmedCalls.add(id);
      for (const id of pending.resultIds ?? []) this.trimmedCalls.delete(id);
      return "left out an item whose tool exchange a trim removed";
    }
    if (pending.unit < 0) this.trimmedUnits.clear();
    if (pending.resultIds !== undefined && pending.resultIds.length > 0 && pending.resultIds.every((id) => this.trimmedCalls.has(id))) {
      // Its call was trimmed away (the window could not hold the exchange): a result alone is invalid.
      for (const id of pending.resultIds) this.trimmedCalls.delete(id);
      return "dropped a tool result whose call a trim removed";
    }
    return undefined;
  }

  /** Remembers a message admit() read, now in the history; returns its facts for the columns. */
  accept(message: MessageLike, pending: PendingFacts): MessageFacts {
    const facts = this.reader.commit(pending);
    this.track(message, facts);
    return facts;
  }

  /** A trim removed `removed` (whose tool units are `units`): their pending calls will not be answered. */
  trimmed(removed: readonly MessageLike[], units: Int32Array): void {
    this.trimmedUnits.add(units);
    if (this.pendingCalls.size === 0) return;
    // A message that makes a call is in a unit: only the removed messages of the pending calls'
    // units are read (a trim of thousands reads one or two), found by indexOf (the engine's own
    // scan: a trim's code is cold, and a loop over thousands of units runs unoptimized).
    for (const unit of new Set(this.pendingCalls.values())) {
      for (let k = units.indexOf(unit); k >= 0; k = units.indexOf(unit, k + 1)) {
        visitMessage(removed[k] as unknown as Record<string, unknown>, {
          text: () => {},
          image: () => {},
          toolResult: () => {},
          toolCall: (id) => {
            if (id !== undefined && this.pendingCalls.delete(id)) this.trimmedCalls.add(id);
          },
        });
      }
    }
  }

  /**
   * The history was replaced by `messages`, read by `reader` into `facts` (load, import, a
   * session's log): its open tool calls are its own, and later messages are read on from there.
   */
  restart(reader: MetadataReader, messages: readonly MessageLike[], facts: readonly MessageFacts[]): void {
    this.reader = reader;
    this.pendingCalls.clear();
    this.trimmedCalls.clear();
    this.trimmedUnits.clear();
    messages.forEach((m, i) => this.track(m, facts[i] as MessageFacts));
  }

  /** The history was cleared: nothing is open any more. */
  clear(): void {
    this.pendingCalls.clear();
    this.trimmedCalls.clear();
    this.trimmedUnits.clear();
    this.pendingReasoning = false;
    this.reader = new MetadataReader({ orphanToolResults: this.orphanToolResults, pinFirstUserMessage: this.pinFirstUserMessage });
  }

  private track(message: MessageLike, facts: MessageFacts): void {
    for (const id of facts.resultIds ?? []) this.pendingCalls.delete(id);
    for (const id of facts.callIds ?? []) this.pendingCalls.set(id, facts.unit);
    const record = message as { role?: unknown; type?: unknown };
    this.pendingReasoning = record.role === undefined && record.type === "reasoning";
  }
}

/** Lists of units kept before they are merged into one. */
const MAX_LISTS = 16;

/**
 * The tool units trims removed, kept as the trims' own lists of units (looked through with
 * includes, the engine's own scan) rather than copied into a set: a trim of thousands of messages
 * would copy thousands in cold code, and the lists are dropped at the next message outside a unit.
 */
class TrimmedUnits {
  private lists: Int32Array[] = [];

  add(units: Int32Array): void {
    if (units.length > 0) this.lists.push(units);
    // Trims with no message outside a unit between them (a run of tool calls): one list, once in a while.
    if (this.lists.length > MAX_LISTS) this.lists = [Int32Array.from(new Set(this.lists.flatMap((list) => Array.from(list))))];
  }

  has(unit: number): boolean {
    return unit >= 0 && this.lists.some((units) => units.includes(unit));
  }

  clear(): void {
    this.lists = [];
  }
}
