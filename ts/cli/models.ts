// `ctxwin models`: the core's table of model limits, with the prompt budget ctxwin derives from
// each (ContextLimits.forModel: window - output reserve - 1,000 margin).
import { ContextLimits, defaultModelRegistry } from "../history/context-limits.js";
import { encodingForModel } from "../tokens/encodings.js";
import { num, paletteFor, type Io } from "./terminal.js";
import { COMMANDS, UsageError, parse } from "./usage.js";

export async function modelsCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse("models", args, { json: { type: "boolean", default: false } });
  if (values.help) {
    io.stdout.write(`${COMMANDS.models}\n`);
    return 0;
  }
  if (positionals.length > 1) throw new UsageError("at most one FILTER", "models");
  const filter = positionals[0]?.toLowerCase();
  const rows = defaultModelRegistry
    .list()
    .filter((m) => filter === undefined || m.model.includes(filter))
    .map((m) => {
      const limits = ContextLimits.forModel(m.model);
      const { encoding, exact } = encodingForModel(m.model);
      return {
        model: m.model,
        contextWindow: m.contextWindow,
        maxOutputTokens: m.maxOutput > 0 ? m.maxOutput : null,
        responseReserve: limits.maxOutputTokens,
        effectiveLimit: limits.effectiveLimit,
        encoding,
        exactCounts: exact,
      };
    });
  if (values.json) {
    io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    io.stderr.write(`no model matches "${positionals[0]}"\n`);
    return 1;
  }
  const colors = paletteFor(io.stdout, io.env);
  const header = ["model", "window", "max output", "prompt budget", "counted with"];
  const table = rows.map((r) => [
    r.model,
    num(r.contextWindow),
    r.maxOutputTokens === null ? `(20%: ${num(r.responseReserve)})` : num(r.maxOutputTokens),
    num(r.effectiveLimit),
    r.exactCounts ? `${r.encoding}, exact` : `${r.encoding}, approximate`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => (row[i] as string).length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === 4 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join("  ");
  io.stdout.write(`${colors.bold(line(header).trimEnd())}\n`);
  for (const row of table) io.stdout.write(`${line(row).trimEnd()}\n`);
  io.stdout.write(colors.dim(`${rows.length} models. prompt budget = window - max output (20% of the window when none is published) - 1,000 margin.\n`));
  return 0;
}
