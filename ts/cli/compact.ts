// `ctxwin compact`: MessageContextManager's progressive compaction, offline, on a conversation
// file: large tool results compacted, old ones cleared, old turns summarized by the built-in
// extractive summarizer, then a trim, each level only while the conversation is over the target.
import { writeFile } from "node:fs/promises";
import { ContextLimits } from "../budget/context-limits.js";
import { MessageContextManager } from "../context/message-context-manager.js";
import { extractiveSummarizer } from "../models/extractive-summarizer.js";
import type { CompactionReport } from "../compaction/progressive-compaction.js";
import { getCounter } from "../tokens/get-counter.js";
import type { MessageLike } from "../messages/types.js";
import { InputError } from "./input.js";
import { loadConversation, strategyNamed, toolDefinitionTokens } from "./inspect.js";
import { num, paletteFor, preview, type Io } from "./terminal.js";
import { renderPreview } from "./compact-preview.js";
import { COMMANDS, UsageError, intOption, parse } from "./usage.js";
import { TruncationMode } from "../context/options.js";

const LEVEL_NAMES: Record<string, string> = {
  clear_old_reasoning: "clear old reasoning",
  compact_tool_results: "compact large tool results",
  clear_old_tool_results: "clear old tool results",
  summarize: "summarize old turns (extractive)",
  truncate: "trim",
};

export async function compactCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse("compact", args, {
    model: { type: "string", short: "m", default: "gpt-4o" },
    target: { type: "string", short: "t" },
    strategy: { type: "string" },
    output: { type: "string", short: "o" },
    json: { type: "boolean", default: false },
    "dry-run": { type: "boolean", default: false },
  });
  if (values.help) {
    io.stdout.write(`${COMMANDS.compact}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? "no FILE given" : "one FILE at a time", "compact");
  const target = intOption(values.target as string | undefined, "--target", "compact", 1);
  if (target === undefined) throw new UsageError("--target N is required", "compact");
  const strategy = strategyNamed(values.strategy as string | undefined, "compact");
  const model = values.model as string;
  const file = positionals[0] as string;
  const conversation = await loadConversation(file, io);
  if (values.output === "-" && values.json) throw new UsageError("--json and -o - both write to stdout: choose one", "compact");
  if (values["dry-run"] && values.output !== undefined) throw new UsageError("--dry-run writes nothing: leave out -o", "compact");

  const counter = getCounter(model);
  const toolTokens = toolDefinitionTokens(counter, conversation);
  const budget = target - toolTokens;
  if (budget < 1) throw new InputError(`--target ${num(target)} leaves no room: the tool definitions alone take ${num(toolTokens)} tokens`);
  const context = new MessageContextManager<MessageLike>({
    model,
    mode: TruncationMode.SUMMARIZE,
    counter,
    limits: new ContextLimits({ model, maxTokens: budget, maxOutputTokens: 0, reservedTokens: 0 }),
    compaction: {
      summarizer: extractiveSummarizer(),
      // The whole window is the target: compaction starts above it and stops as soon as it is there.
      trimAt: 1,
      trimTo: 1,
      autoTruncate: false,
      ...(strategy ? { strategy } : {}),
    },
    warnings: { orphanToolResults: "drop" },
  });
  if (conversation.system) context.setSystemPrompt(conversation.system);
  context.load(conversation.messages);
  const messagesBefore = conversation.messages.length;
  if (values["dry-run"]) {
    const preview = await context.preview({ threshold: 1 });
    // The messages the run writes: the omission marker a trim leaves is one of them.
    const plan = { ...preview, messagesAfter: preview.messagesAfter + (preview.omissionMarker ? 1 : 0) };
    const head = { file, model, target, toolDefinitionTokens: toolTokens };
    if (values.json) io.stdout.write(`${JSON.stringify({ ...head, ...plan }, null, 2)}\n`);
    else io.stdout.write(`${renderPreview(plan, head, paletteFor(io.stdout, io.env))}\n`);
    return 0;
  }
  const report = await context.compactIfNeeded({ threshold: 1 });
  const result = context.getContextForRequest();

  const output = values.output as string | undefined;
  if (output !== undefined) {
    const json = `${JSON.stringify(result, null, 2)}\n`;
    if (output === "-") io.stdout.write(json);
    else await writeFile(output, json);
  }
  const summary = {
    file,
    model,
    target,
    toolDefinitionTokens: toolTokens,
    messagesBefore,
    messagesAfter: result.length,
    tokensBefore: report.tokensBefore + toolTokens,
    tokensAfter: report.tokensAfter + toolTokens,
    fits: report.tokensAfter + toolTokens <= target,
    levels: report.levels,
    summary: report.summary?.content,
    removed: report.removed.length,
    replaced: report.replaced.length,
  };
  if (values.json) {
    io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    return 0;
  }
  // With -o -, stdout carries the messages: the report goes to stderr.
  const out = values.output === "-" ? io.stderr : io.stdout;
  out.write(`${renderReport(summary, report, paletteFor(out as Io["stdout"], io.env), context.strategy.name)}\n`);
  if (values.output !== undefined && values.output !== "-") out.write(`wrote ${result.length} messages to ${values.output}\n`);
  return 0;
}

function renderReport(
  s: {
    file: string;
    model: string;
    target: number;
    toolDefinitionTokens: number;
    messagesBefore: number;
    messagesAfter: number;
    tokensBefore: number;
    tokensAfter: number;
    fits: boolean;
    summary: string | undefined;
  },
  report: CompactionReport<MessageLike>,
  colors: ReturnType<typeof paletteFor>,
  strategyName: string,
): string {
  const lines: string[] = [];
  lines.push(colors.bold(`${s.file}: compact to ${num(s.target)} tokens (${s.model}; offline, extractive summarizer)`));
  if (s.toolDefinitionTokens > 0)
    lines.push(`tool definitions: ${num(s.toolDefinitionTokens)} tokens, kept as they are (the levels count the rest)`);
  lines.push("");
  lines.push(`  level  ${"step".padEnd(34)}${"applied".padEnd(9)}${"messages".padStart(8)}  ${"tokens".padStart(23)}`);
  for (const level of report.levels) {
    const name = level.name === "truncate" ? `trim (${strategyName})` : (LEVEL_NAMES[level.name] ?? level.name);
    const tokens = level.applied ? `${num(level.tokensBefore)} -> ${num(level.tokensAfter)}` : num(level.tokensAfter);
    const applied = level.applied ? colors.green("yes".padEnd(9)) : colors.dim("no".padEnd(9));
    lines.push(
      `  ${String(level.level).padEnd(7)}${name.padEnd(34)}${applied}${(level.applied ? String(level.messagesChanged) : "-").padStart(8)}  ${tokens.padStart(23)}`,
    );
    if (level.error) lines.push(`         ${colors.red(`error: ${level.error}`)}`);
  }
  lines.push("");
  const verdict = s.fits ? colors.green("fits the target") : colors.yellow("over the target: the pinned messages alone are larger");
  lines.push(
    `result: ${s.messagesBefore} -> ${s.messagesAfter} messages, ${num(s.tokensBefore)} -> ${num(s.tokensAfter)} tokens (${verdict})`,
  );
  if (s.summary) lines.push(`summary: ${colors.dim(JSON.stringify(preview(s.summary, 300)))}`);
  return lines.join("\n");
}
