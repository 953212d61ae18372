// `ctxwin compact --dry-run`: the plan of the compaction, nothing written. A diff of the
// conversation: each message the levels would clear, cut, summarize or drop, with the tokens
// before and after, then the totals (and input dollars where the catalog prices the model).
import type { CompactionPreview, PreviewUnit } from "../context/compaction-preview.js";
import { num, type Palette } from "./terminal.js";

const ACTIONS: Record<PreviewUnit["action"], string> = {
  clear_reasoning: "reasoning cleared",
  cut: "cut",
  clear: "cleared (recall id kept)",
  summarize: "summarized",
  drop: "dropped",
};

/** The plan as a readable diff: `~` a message rewritten in place, `-` one that goes. */
export function renderPreview(
  plan: CompactionPreview,
  head: { file: string; model: string; target: number; toolDefinitionTokens: number },
  colors: Palette,
): string {
  const lines: string[] = [];
  const tools = head.toolDefinitionTokens;
  lines.push(colors.bold(`${head.file}: compaction to ${num(head.target)} tokens planned, nothing changed (${head.model}; dry run)`));
  if (!plan.runs) {
    lines.push(`already within the target: ${num(plan.tokensBefore + tools)} tokens, nothing to do`);
    return lines.join("\n");
  }
  lines.push("");
  for (const unit of [...plan.units].sort((a, b) => a.index - b.index)) {
    const goes = unit.action === "summarize" || unit.action === "drop";
    const sign = goes ? "-" : "~";
    const where = `#${String(unit.index + 1).padEnd(5)}${unit.role.padEnd(10)}${unit.id.padEnd(24)}`;
    const tokens = goes ? `${num(unit.tokensBefore)} tokens` : `${num(unit.tokensBefore)} -> ${num(unit.tokensAfter)} tokens`;
    const text = `${sign} ${where}${ACTIONS[unit.action].padEnd(26)}${tokens.padStart(22)}  frees ${num(unit.freed)}  (${unit.level})`;
    lines.push(goes ? colors.red(text) : colors.yellow(text));
  }
  if (plan.summary) lines.push(colors.green(`+ summary (${num(plan.summary.tokens)} tokens, ${plan.summarizer} summarizer)`));
  lines.push("");
  const verdict =
    plan.tokensAfter + tools <= head.target
      ? colors.green("fits the target")
      : colors.yellow("over the target: the pinned messages alone are larger");
  lines.push(
    `result: ${plan.messagesBefore} -> ${plan.messagesAfter} messages, ${num(plan.tokensBefore + tools)} -> ${num(plan.tokensAfter + tools)} tokens (${verdict})`,
  );
  if (plan.cost) {
    const dollars = (tokens: number) => `$${((tokens * plan.cost!.inputPerMillion) / 1e6).toFixed(4)}`;
    lines.push(
      `input cost per request: ${dollars(plan.tokensBefore + tools)} -> ${dollars(plan.tokensAfter + tools)} (at $${plan.cost.inputPerMillion} per 1M input tokens)`,
    );
  }
  return lines.join("\n");
}
