// ctxwin/openai-agents: ctxwin inside the OpenAI Agents SDK (`@openai/agents`, an optional peer
// dependency; nothing of it is needed at run time).
//
//   const filter = contextInputFilter({ model: "gpt-4.1" });
//   const runner = new Runner({ callModelInputFilter: filter });
//   filter.attach(runner);                                        // reported usage calibrates
//   await runner.run(agent, "Fix the bug", { session: new ContextSession({ model: "gpt-4.1" }) });
//
// contextInputFilter sees every model call inside a run (instructions, input items, the agent's
// tools) and brings it within the window with ctxwin's levels. ContextSession is the SDK's
// Session: it keeps every item (in memory, in a ctxwin SessionStore so that a restarted process or
// another worker continues it, or in another Session it wraps) and hands the runner a history
// within the window.
import "../../runtime/node-loader.js"; // loads the core on Node before anything uses it
import type { AgentInputItem, Runner, RunContext, Session } from "@openai/agents";
import { PromptFitter, checkContextOptions, type ContextOptions, type FitEvent } from "../shared/prompt-fitter.js";
import { reportedInputTokens } from "../../budget/usage-calibration.js";
import { describe, requireCount, requireString, typeError } from "../../runtime/errors.js";
import type { MessageLike, ToolDefinition } from "../../messages/types.js";
import { isResultItem, toItems, toMessageLikes, type LinkedItemMessage } from "./items.js";
import { StoreItems } from "./store-items.js";
import type { SessionStore } from "../../session/store.js";

export type { PromptFitter, FitRequest, FitResult } from "../shared/prompt-fitter.js";
export type { ContextOptions, FitEvent, LinkedItemMessage };
export { toItems, toMessageLikes, StoreItems };
export { UsageCalibration } from "../../budget/usage-calibration.js";
export { recallTool } from "./recall-tool.js";
export { contextTools } from "./context-tools.js";

type ModelInputData = { input: AgentInputItem[]; instructions?: string };
/** What ctxwin reads of an Agent: its tools, handoffs and output limit (any Agent has them). */
export interface AgentLike {
  readonly tools?: readonly unknown[];
  readonly handoffs?: readonly unknown[];
  readonly modelSettings?: { maxTokens?: number };
}
type FilterArgs = { modelData: ModelInputData; agent: AgentLike; context: unknown };

/** The function tools and handoffs an agent sends with each call, as the counter reads definitions. */
function definitionsOf(agent: AgentLike | undefined): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  for (const tool of (agent?.tools ?? []) as Array<{ type?: string; name?: string; description?: string; parameters?: unknown }>) {
    if (tool.type === "function")
      out.push({
        type: "function",
        function: { name: String(tool.name), description: tool.description, parameters: tool.parameters as ToolDefinition["parameters"] },
      });
    else out.push({ type: "function", function: { name: String(tool.name ?? tool.type) } });
  }
  for (const handoff of (agent?.handoffs ?? []) as Array<{
    toolName?: string;
    toolDescription?: string;
    inputJsonSchema?: unknown;
    name?: string;
  }>) {
    const name = handoff.toolName ?? `transfer_to_${String(handoff.name)}`;
    out.push({
      type: "function",
      function: { name, description: handoff.toolDescription, parameters: handoff.inputJsonSchema as ToolDefinition["parameters"] },
    });
  }
  return out;
}

export interface ContextInputFilter {
  (args: FilterArgs): Promise<ModelInputData>;
  readonly fitter: PromptFitter;
  /**
   * Subscribes to the runner's lifecycle events so that each model response's reported usage
   * (RunContext.usage's per-request entries) calibrates later counts. Returns the unsubscriber.
   */
  attach(runner: Pick<Runner, "on" | "off">): () => void;
}

/**
 * A `callModelInputFilter` (Runner config or run options) that fits every model call of a run:
 * instructions, input items and the agent's tool definitions, counted with the model's counter,
 * brought within the window with ctxwin's levels (a reasoning item stays with the calls of its
 * response, a call with its result). Summaries are written as user messages unless `summaryRole`
 * says otherwise.
 */
export function contextInputFilter(options: ContextOptions): ContextInputFilter {
  checkContextOptions(options);
  const fitter = new PromptFitter(options);
  /** What each run last sent, by its context object (the runner passes RunContext.context), to match its usage. */
  const sentByContext = new WeakMap<object, object>();
  let sentLast: object | undefined;
  const seen = new WeakMap<object, number>();

  const filter = async ({ modelData, agent, context }: FilterArgs): Promise<ModelInputData> => {
    if (modelData === null || typeof modelData !== "object" || !Array.isArray(modelData.input))
      throw typeError(`modelData must be { input, instructions }, got ${describe(modelData)}`);
    const head: MessageLike[] = modelData.instructions ? [{ role: "system", content: modelData.instructions }] : [];
    const whole = [...head, ...toMessageLikes(modelData.input)];
    const maxTokens = agent?.modelSettings?.maxTokens;
    const result = await fitter.fit(whole, { tools: definitionsOf(agent), maxOutputTokens: maxTokens });
    const key: object = result.changed ? result.messages : whole;
    sentLast = key;
    if (typeof context === "object" && context !== null) sentByContext.set(context, key);
    if (!result.changed) return modelData;
    return { ...modelData, input: toItems(result.messages.slice(head.length)) };
  };

  const observe = (runContext: RunContext<unknown>) => {
    const entries = runContext?.usage?.requestUsageEntries;
    if (!Array.isArray(entries) || entries.length === (seen.get(runContext) ?? 0)) return;
    seen.set(runContext, entries.length);
    const usage = entries[entries.length - 1];
    const context = runContext.context;
    const key = (typeof context === "object" && context !== null ? sentByContext.get(context) : undefined) ?? sentLast;
    try {
      if (usage && key && reportedInputTokens(usage) !== undefined) fitter.observeUsage(usage, key);
    } catch (error) {
      fitter.logger.warn(`ctxwin: ignored a usage the model reported: ${(error as Error).message}`);
    }
  };

  return Object.assign(filter, {
    fitter,
    attach(runner: Pick<Runner, "on" | "off">) {
      if (!runner || typeof runner.on !== "function") throw typeError(`runner must be an Agents SDK Runner, got ${describe(runner)}`);
      const onTool = (ctx: RunContext<unknown>) => observe(ctx);
      const onEnd = (ctx: RunContext<unknown>) => observe(ctx);
      runner.on("agent_tool_start", onTool);
      runner.on("agent_end", onEnd);
      return () => {
        runner.off("agent_tool_start", onTool);
        runner.off("agent_end", onEnd);
      };
    },
  });
}

export interface ContextSessionOptions extends ContextOptions {
  /** The session id (default: a random UUID; with `store`, the session's id in the store). Ignored when `session` is given. */
  sessionId?: string;
  /**
   * A ctxwin SessionStore (MemorySessionStore, FileSessionStore, RedisSessionStore) to keep the
   * items in, under `sessionId`: they persist, and every ContextSession on that id, in this process
   * or another, sees the same session. popItem and clearSession are recorded as boundaries.
   */
  store?: SessionStore;
  /**
   * Where the items live instead (default: in memory): any Session, the SDK's own included.
   * ContextSession keeps every item there and fits only what it hands the runner.
   */
  session?: Session;
  /** The agent's instructions, counted against the window (the session does not see them otherwise). */
  instructions?: string;
  /** The agent whose tool definitions are counted against the window. */
  agent?: AgentLike;
}

/** The items kept in memory: the default store behind ContextSession. */
class MemoryItems implements Session {
  private items: AgentInputItem[] = [];
  constructor(private readonly id: string) {}
  async getSessionId(): Promise<string> {
    return this.id;
  }
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    return limit === undefined ? this.items.slice() : this.items.slice(Math.max(0, this.items.length - limit));
  }
  async addItems(items: AgentInputItem[]): Promise<void> {
    this.items.push(...items);
  }
  async popItem(): Promise<AgentInputItem | undefined> {
    return this.items.pop();
  }
  async clearSession(): Promise<void> {
    this.items = [];
  }
}

/**
 * The SDK's `Session`, keeping what it gives the runner within the window: every item is kept
 * (nothing is destroyed), and getItems() returns them brought within the window with ctxwin's
 * levels, the instructions and the agent's tools counted. Pass `store` (and `sessionId`) to keep
 * the items in a ctxwin SessionStore, shared by every worker on that id, or `session` to keep them
 * in another Session, instead of in memory.
 */
export class ContextSession implements Session {
  readonly fitter: PromptFitter;
  private readonly inner: Session;
  private readonly instructions: string | undefined;
  private readonly agent: AgentLike | undefined;

  constructor(options: ContextSessionOptions) {
    checkContextOptions(options);
    if (options.sessionId !== undefined) requireString(options.sessionId, "options.sessionId");
    if (options.instructions !== undefined) requireString(options.instructions, "options.instructions");
    const inner = options.session;
    if (inner !== undefined && (inner === null || typeof inner.getItems !== "function" || typeof inner.addItems !== "function")) {
      throw typeError(`options.session must be an Agents SDK Session, got ${describe(inner)}`);
    }
    if (inner !== undefined && options.store !== undefined)
      throw typeError("options.session and options.store exclude each other: give one place for the items");
    const id = options.sessionId ?? globalThis.crypto.randomUUID();
    const stored = options.store === undefined ? undefined : new StoreItems(options.store, id);
    this.fitter = new PromptFitter(options);
    this.inner = inner ?? stored ?? new MemoryItems(id);
    this.instructions = options.instructions;
    this.agent = options.agent;
  }

  getSessionId(): Promise<string> {
    return this.inner.getSessionId();
  }

  /** The history within the window; with `limit`, its last `limit` items (never opening on a tool result). */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    if (limit !== undefined) requireCount(limit, "limit");
    const items = await this.inner.getItems();
    const head: MessageLike[] = this.instructions ? [{ role: "system", content: this.instructions }] : [];
    const whole = [...head, ...toMessageLikes(items)];
    const result = await this.fitter.fit(whole, { tools: definitionsOf(this.agent) });
    const fitted = result.changed ? toItems(result.messages.slice(head.length)) : items;
    if (limit === undefined) return fitted;
    let start = Math.max(0, fitted.length - limit);
    while (start < fitted.length && isResultItem(fitted[start])) start++;
    return fitted.slice(start);
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    if (!Array.isArray(items)) throw typeError(`items must be an array, got ${describe(items)}`);
    toMessageLikes(items); // checks every item before any is stored
    return this.inner.addItems(items);
  }

  popItem(): Promise<AgentInputItem | undefined> {
    return this.inner.popItem();
  }

  clearSession(): Promise<void> {
    return this.inner.clearSession();
  }
}
