// `ctxwin inspect` (and the chat's /context): a conversation as the model would receive it, its
// tokens split by component, the largest messages, and what the next trim would remove.
//
// Every message is counted once, exactly as MessageContextManager counts it; the split inside a
// message (its tool calls, its tool results) counts the same strings the request count does, so
// the components add up to the total. The trim is the strategy's own plan().
import { defaultModelRegistry, unknownModelError } from "../catalog/model-registry.js";
import { ContextLimits } from "../budget/context-limits.js";
import { messageTokens } from "../tokens/message-tokens.js";
import {
  SelectiveTruncationStrategy,
  SlidingWindowStrategy,
  SmartTruncationStrategy,
  TokenBudgetStrategy,
  type TruncationStrategy,
} from "../truncation/strategies.js";
import { encodingForModel } from "../tokens/tokenizer-choice.js";
import { getCounter } from "../tokens/get-counter.js";
import { DEFAULT_IMAGE_TOKENS } from "../tokens/message-count.js";
import { visitMessage, visitToolOutput, type MessageVisitor } from "../messages/message-shape.js";
import type { BatchTokenCounter, TokenCounter } from "../tokens/token-counter.js";
import { readConversation, type Conversation } from "./input.js";
import { costView, renderCost } from "./inspect-cost.js";
import type { Component, ContextView, MessageSummary } from "./inspect-view.js";

export type { Component, ContextView, MessageSummary } from "./inspect-view.js";
import { bar, num, paletteFor, pct, preview, type Io, type Palette } from "./terminal.js";
import { COMMANDS, UsageError, intOption, parse, type CommandName } from "./usage.js";
import type { MessageLike } from "../messages/types.js";

export const STRATEGIES = ["smart", "sliding-window", "token-budget", "selective"] as const;

export function strategyNamed(name: string | undefined, command: CommandName): TruncationStrategy | undefined {
  switch (name) {
    case undefined:
      return undefined;
    case "smart":
      return new SmartTruncationStrategy();
    case "sliding-window":
      return new SlidingWindowStrategy();
    case "token-budget":
      return new TokenBudgetStrategy();
    case "selective":
      return new SelectiveTruncationStrategy();
    default:
      throw new UsageError(`--strategy must be one of ${STRATEGIES.join(", ")}, got "${name}"`, command);
  }
}

/**
 * The limits for a model, or a window of exactly N prompt tokens (--window). A model id nothing
 * resolves stops the command (ERR_CTXWIN_UNKNOWN_MODEL, naming the closest known ids) rather than
 * planning with a window it does not have.
 */
export function limitsFor(model: string, window: number | undefined): ContextLimits {
  if (window !== undefined) return new ContextLimits({ model, maxTokens: window, maxOutputTokens: 0, reservedTokens: 0 });
  if (defaultModelRegistry.resolve(model) === undefined)
    throw unknownModelError(model, defaultModelRegistry, "--model", UNKNOWN_MODEL_REMEDY);
  return ContextLimits.forModel(model);
}

const UNKNOWN_MODEL_REMEDY =
  "add it with --models FILE (models.dev's JSON format) or give its window with --window N (`ctxwin models --search TEXT` lists the known ids)";

/** Splits a message into the components it feeds; what is left (framing, role) goes to `rest`. */
class Splitter {
  private readonly toolNames = new Map<string, string>();
  constructor(private readonly counter: TokenCounter) {}

  private countAll(texts: string[]): number {
    if (texts.length === 0) return 0;
    const many = (this.counter as Partial<BatchTokenCounter>).countMany;
    if (typeof many === "function") return Array.from(many.call(this.counter, texts)).reduce((a, b) => a + b, 0);
    return texts.reduce((a, t) => a + this.counter.count(t), 0);
  }

  /** Tokens of the message's tool calls and of its tool results, per tool name. */
  split(message: MessageLike): { calls: number; results: Map<string, number> } {
    const callTexts: string[] = [];
    let callFixed = 0;
    const results = new Map<string, number>();
    const push = (into: string[], value: unknown) => {
      if (typeof value === "string") {
        if (value.length > 0) into.push(value);
      } else if (value !== undefined && value !== null) into.push(JSON.stringify(value) ?? "");
    };
    const visitor: MessageVisitor = {
      text: () => {},
      image: () => {},
      toolCall: (id, name, args) => {
        if (id !== undefined && typeof name === "string") this.toolNames.set(id, name);
        callFixed += 3; // the framing countMessages charges per call
        push(callTexts, name);
        push(callTexts, args);
      },
      toolResult: (id, output) => {
        const texts: string[] = [];
        let images = 0;
        visitToolOutput(output, {
          text: (v) => push(texts, v),
          image: () => images++,
          toolCall: () => {},
          toolResult: (_i, inner) => push(texts, inner),
        });
        const name = (id !== undefined ? this.toolNames.get(id) : undefined) ?? "(unknown tool)";
        results.set(name, (results.get(name) ?? 0) + this.countAll(texts) + images * DEFAULT_IMAGE_TOKENS);
      },
    };
    visitMessage(message as unknown as Record<string, unknown>, visitor);
    return { calls: callFixed + this.countAll(callTexts), results };
  }
}

function textOf(message: MessageLike): string {
  const parts: string[] = [];
  const results = (message as { tool_call_id?: unknown }).tool_call_id !== undefined;
  visitMessage(message as unknown as Record<string, unknown>, {
    // An OpenAI tool message's text is its call id: show its result instead.
    text: (v) => {
      if (typeof v === "string" && !results) parts.push(v);
    },
    image: () => parts.push("[image]"),
    toolCall: (_id, name, args) => parts.push(`${String(name)}(${typeof args === "string" ? args : JSON.stringify(args)})`),
    toolResult: (_id, output) =>
      visitToolOutput(output, {
        text: (v) => parts.push(typeof v === "string" ? v : JSON.stringify(v)),
        image: () => parts.push("[image]"),
        toolCall: () => {},
        toolResult: () => {},
      }),
  });
  return parts.join(" ");
}

const roleComponent = (role: string): string =>
  role === "system" || role === "developer" ? "system" : role === "user" ? "user" : role === "assistant" ? "assistant" : "tool results";

/**
 * What a conversation's tool definitions add to its request. The API writes them after the
 * request's first system message, which changes that message's count too (docs/tokens.md), so they
 * are counted beside it.
 */
export function toolDefinitionTokens(counter: TokenCounter, conversation: Conversation): number {
  if (conversation.tools.length === 0) return 0;
  const system: MessageLike | undefined =
    conversation.system !== undefined && conversation.system !== ""
      ? { role: "system", content: conversation.system }
      : conversation.messages.find((m) => m.role === "system");
  const head = system === undefined ? [] : [system];
  return counter.countMessages(head, { tools: conversation.tools }) - counter.countMessages(head);
}

export interface AnalyzeOptions {
  model: string;
  counter?: TokenCounter;
  limits?: ContextLimits;
  strategy?: TruncationStrategy;
  /** Share of the effective limit where trims start (default 0.8, MessageContextManager's). */
  trimAt?: number;
  largest?: number;
}

export function analyzeContext(conversation: Conversation, options: AnalyzeOptions): ContextView {
  const { model } = options;
  const counter = options.counter ?? getCounter(model);
  const limits = options.limits ?? ContextLimits.forModel(model);
  const strategy = options.strategy ?? new SmartTruncationStrategy();
  const { encoding, exact } = encodingForModel(model);
  const { messages } = conversation;

  const overhead = counter.countMessages([]);
  const toolTokens = toolDefinitionTokens(counter, conversation);
  const systemPrompt =
    conversation.system !== undefined && conversation.system !== ""
      ? counter.countMessages([{ role: "system", content: conversation.system }]) - overhead
      : 0;
  const perMessage = messageTokens(counter, messages);

  const sums = new Map<string, number>([
    ["system", systemPrompt],
    ["user", 0],
    ["assistant", 0],
    ["tool calls", 0],
    ["tool results", 0],
  ]);
  const byTool = new Map<string, number>();
  const add = (key: string, n: number) => sums.set(key, (sums.get(key) ?? 0) + n);
  const splitter = new Splitter(counter);
  const summaries: MessageSummary[] = [];
  messages.forEach((message, index) => {
    const tokens = perMessage[index] ?? 0;
    const { calls, results } = splitter.split(message);
    const resultTokens = [...results.values()].reduce((a, b) => a + b, 0);
    let rest = tokens - calls - resultTokens;
    const role = message.role ?? ""; // the command reads chat messages, which have one
    const home = roleComponent(role);
    if (home === "tool results") {
      // A tool message is all result: its framing goes to its (first) tool.
      const first = results.keys().next().value ?? "(unknown tool)";
      results.set(first, (results.get(first) ?? 0) + rest);
      rest = 0;
    }
    if (home !== "tool results") add(home, rest);
    add("tool calls", calls);
    for (const [tool, n] of results) {
      add("tool results", n);
      byTool.set(tool, (byTool.get(tool) ?? 0) + n);
    }
    const tool = results.size > 0 ? [...results.keys()].join(", ") : undefined;
    summaries.push({ index, role, ...(tool ? { tool } : {}), tokens, preview: preview(textOf(message), 60) });
  });

  const total = overhead + toolTokens + messages.reduce((a, _m, i) => a + (perMessage[i] ?? 0), 0) + systemPrompt;
  const components: Component[] = [
    { name: "system", tokens: sums.get("system") ?? 0 },
    { name: "tool definitions", tokens: toolTokens },
    { name: "user", tokens: sums.get("user") ?? 0 },
    { name: "assistant", tokens: sums.get("assistant") ?? 0 },
    { name: "tool calls", tokens: sums.get("tool calls") ?? 0 },
    {
      name: "tool results",
      tokens: sums.get("tool results") ?? 0,
      children: [...byTool].sort((a, b) => b[1] - a[1]).map(([name, tokens]) => ({ name, tokens })),
    },
    { name: "request overhead", tokens: overhead },
  ];

  const trimAt = options.trimAt ?? 0.8;
  const threshold = Math.floor(limits.effectiveLimit * trimAt);
  const due = total > threshold;
  const trim: ContextView["trim"] = { strategy: strategy.name, threshold, due, removed: [], removedTokens: 0, tokensAfter: total };
  if (due && messages.length > 0) {
    const fixed = overhead + toolTokens + systemPrompt;
    const plan = strategy.plan(messages, Math.max(0, threshold - fixed), counter);
    trim.removed = plan.removedIndices.map((i) => summaries[i] as MessageSummary);
    trim.removedTokens = trim.removed.reduce((a, m) => a + m.tokens, 0);
    trim.tokensAfter = fixed + plan.keptTokens;
    if (plan.marker) trim.marker = plan.marker.message.content;
    if (plan.warning) trim.warning = plan.warning;
  }

  const cost = costView(model, total, overhead + toolTokens + systemPrompt, due && trim.removed.length > 0 ? trim.tokensAfter : undefined);
  return {
    model,
    encoding,
    exact,
    window: limits.maxTokens,
    effectiveLimit: limits.effectiveLimit,
    reserved: limits.maxTokens - limits.effectiveLimit,
    total,
    messages: messages.length,
    components,
    largest: summaries
      .slice()
      .sort((a, b) => b.tokens - a.tokens || a.index - b.index)
      .slice(0, options.largest ?? 5),
    trim,
    ...(cost ? { cost } : {}),
  };
}

const BAR = 30;

/** The view as text, Claude Code /context style: one row per component, bars of the window. */
export function renderContextView(view: ContextView, colors: Palette, title: string): string {
  const lines: string[] = [];
  const note = view.exact ? `${view.encoding}, exact` : `${view.encoding}, approximate for this model`;
  lines.push(colors.bold(title));
  lines.push(
    `${view.model} (${note}): window ${num(view.window)} tokens, ${num(view.effectiveLimit)} for the prompt` +
      (view.reserved > 0 ? `, ${num(view.reserved)} reserved for the response and a margin` : ""),
  );
  lines.push("");
  const label = 22;
  const row = (name: string, tokens: number, paint: (s: string) => string = (s) => s) =>
    `  ${name.padEnd(label)}${num(tokens).padStart(10)}  ${pct(tokens, view.window).padStart(6)}  ${paint(bar(tokens, view.window, BAR))}`;
  for (const c of view.components) {
    lines.push(row(c.name, c.tokens, colors.cyan));
    for (const child of c.children ?? []) lines.push(row(`  ${child.name}`, child.tokens, colors.blue));
  }
  lines.push(`  ${"─".repeat(label + 10 + 2 + 6 + 2 + BAR)}`);
  lines.push(
    `${row("total", view.total, colors.bold).replace(/^ {2}total/, `  ${colors.bold("total")}`)}  ${pct(view.total, view.effectiveLimit)} of the prompt budget`,
  );
  const free = Math.max(0, view.effectiveLimit - view.total);
  lines.push(row("free", free, colors.dim));
  if (view.reserved > 0) lines.push(row("reserved", view.reserved, colors.dim));
  lines.push("");
  if (view.largest.length > 0) {
    lines.push(colors.bold("Largest messages"));
    for (const m of view.largest) {
      const who = m.tool ? `${m.role} (${m.tool})` : m.role;
      lines.push(
        `  #${String(m.index + 1).padEnd(5)}${who.padEnd(24)}${num(m.tokens).padStart(8)}  ${colors.dim(JSON.stringify(m.preview))}`,
      );
    }
    lines.push("");
  }
  lines.push(colors.bold(`Next trim (${view.trim.strategy})`));
  const { trim } = view;
  if (!trim.due) {
    lines.push(
      `  not due: trims start above ${num(trim.threshold)} tokens (80% of the prompt budget); ${num(trim.threshold - view.total)} to go.`,
    );
  } else if (trim.removed.length === 0) {
    lines.push(
      `  due (over ${num(trim.threshold)} tokens), but the strategy can remove nothing${trim.warning ? `: ${trim.warning}` : "."}`,
    );
  } else {
    const ids = ranges(trim.removed.map((m) => m.index + 1));
    lines.push(
      `  due (over ${num(trim.threshold)} tokens): removes ${trim.removed.length} messages (${ids}), ${num(trim.removedTokens)} tokens` +
        `${trim.marker ? `, and puts "${trim.marker}" in their place` : ""}; ${num(trim.tokensAfter)} tokens remain.`,
    );
    if (trim.warning) lines.push(`  ${colors.yellow(trim.warning)}`);
  }
  if (view.cost) lines.push("", ...renderCost(view.cost, colors.bold, num));
  return lines.join("\n");
}

/** 3-10, 14, 16-17 */
function ranges(ids: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < ids.length; ) {
    let j = i;
    while (j + 1 < ids.length && (ids[j + 1] as number) === (ids[j] as number) + 1) j++;
    out.push(i === j ? `#${ids[i]}` : `#${ids[i]}-#${ids[j]}`);
    i = j + 1;
  }
  return out.join(", ");
}

export async function inspectCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse("inspect", args, {
    model: { type: "string", short: "m", default: "gpt-4o" },
    window: { type: "string" },
    strategy: { type: "string" },
    json: { type: "boolean", default: false },
    html: { type: "boolean", default: false },
    output: { type: "string", short: "o" },
  });
  if (values.help) {
    io.stdout.write(`${COMMANDS.inspect}\n`);
    return 0;
  }
  if (values.json && values.html) throw new UsageError("--json and --html: one at a time", "inspect");
  if (values.output !== undefined && !values.html) throw new UsageError("-o/--output goes with --html", "inspect");
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? "no FILE given" : "one FILE at a time", "inspect");
  const file = positionals[0] as string;
  const model = values.model as string;
  const window = intOption(values.window as string | undefined, "--window", "inspect", 16);
  const strategy = strategyNamed(values.strategy as string | undefined, "inspect");
  const conversation = await loadConversation(file, io);
  const view = analyzeContext(conversation, { model, limits: limitsFor(model, window), ...(strategy ? { strategy } : {}) });
  if (values.json) {
    io.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
    return 0;
  }
  if (values.html) {
    const [{ renderInspectHtml }, { writeOutput }] = await Promise.all([import("./inspect-html.js"), import("./report.js")]);
    const title = `${file === "-" ? "(stdin)" : file}: ${view.messages} messages (${conversation.format})`;
    await writeOutput(renderInspectHtml(view, title), values.output as string | undefined, io);
    return 0;
  }
  const colors = paletteFor(io.stdout, io.env);
  io.stdout.write(
    `${renderContextView(view, colors, `${file === "-" ? "(stdin)" : file}: ${view.messages} messages (${conversation.format})`)}\n`,
  );
  return 0;
}

export async function loadConversation(file: string, io: Io): Promise<Conversation> {
  return readConversation(file, io);
}
