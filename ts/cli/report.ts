// `ctxwin report SESSION.jsonl -o report.html`: a session's log (FileSessionStore's file) as one
// self-contained HTML page, renderReport's. The log does not record the manager's limits, so the
// command takes them as the manager was given them (--window, --output-tokens, --trim-at,
// --trim-to); the page names what it drew with.
import { writeFile } from "node:fs/promises";
import { defaultModelRegistry, unknownModelError } from "../catalog/model-registry.js";
import { ContextLimits, type LimitOverrides } from "../budget/context-limits.js";
import { isSessionLogText, recordsOfText } from "../session/file-log.js";
import { renderReport } from "../report/render-report.js";
import { InputError, readText } from "./input.js";
import type { Io } from "./terminal.js";
import { COMMANDS, UsageError, intOption, parse } from "./usage.js";

/** A share in (0, 1] from an option's text, or a usage error naming the option. */
function shareOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^(0?\.\d+|1(\.0*)?)$/.test(value) || !(n > 0 && n <= 1))
    throw new UsageError(`${name} must be a number in (0, 1], got "${value}"`, "report");
  return n;
}

/** Writes `text` to `output` ("-" or none: standard output). */
export async function writeOutput(text: string, output: string | undefined, io: Io): Promise<void> {
  if (output === undefined || output === "-") {
    io.stdout.write(text);
    return;
  }
  try {
    await writeFile(output, text);
  } catch (error) {
    throw new InputError(`${output}: ${(error as Error).message}`);
  }
}

export async function reportCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse("report", args, {
    model: { type: "string", short: "m", default: "gpt-4o" },
    output: { type: "string", short: "o" },
    window: { type: "string" },
    "output-tokens": { type: "string" },
    "trim-at": { type: "string" },
    "trim-to": { type: "string" },
    title: { type: "string" },
  });
  if (values.help) {
    io.stdout.write(`${COMMANDS.report}\n`);
    return 0;
  }
  if (positionals.length !== 1)
    throw new UsageError(positionals.length === 0 ? "no SESSION file given" : "one SESSION file at a time", "report");
  const file = positionals[0] as string;
  const model = values.model as string;
  const window = intOption(values.window as string | undefined, "--window", "report", 16);
  const outputTokens = intOption(values["output-tokens"] as string | undefined, "--output-tokens", "report", 0);
  const trimAt = shareOption(values["trim-at"] as string | undefined, "--trim-at");
  const trimTo = shareOption(values["trim-to"] as string | undefined, "--trim-to");
  if (trimAt !== undefined && trimTo !== undefined && trimTo > trimAt)
    throw new UsageError(`--trim-to (${trimTo}) must be at most --trim-at (${trimAt})`, "report");
  const overrides: LimitOverrides = {};
  if (window !== undefined) overrides.maxTokens = window;
  if (outputTokens !== undefined) overrides.maxOutputTokens = outputTokens;
  // A model nothing resolves needs its window given, as for inspect.
  if (window === undefined && defaultModelRegistry.resolve(model) === undefined)
    throw unknownModelError(model, defaultModelRegistry, "--model", "give its window with --window N or add it with --models FILE");
  const limits =
    window !== undefined && defaultModelRegistry.resolve(model) === undefined
      ? new ContextLimits({ model, maxTokens: window, maxOutputTokens: outputTokens ?? 0, reservedTokens: 0 })
      : ContextLimits.forModel(model, overrides);

  const text = await readText(file, io);
  const where = file === "-" ? "(stdin)" : file;
  if (!isSessionLogText(text)) throw new InputError(`${where}: not a session log (a FileSessionStore file, one JSON record per line)`);
  let records;
  try {
    records = recordsOfText(text, where);
  } catch (error) {
    throw new InputError((error as Error).message);
  }
  let html: string;
  try {
    html = renderReport(records, {
      model,
      limits,
      ...(trimAt === undefined ? {} : { trimAt }),
      ...(trimTo === undefined ? {} : { trimTo }),
      title: (values.title as string | undefined) ?? `Session report: ${where}`,
    });
  } catch (error) {
    // A log entry of the manager's types whose shape is wrong: its coded message, like inspect's.
    if ((error as { code?: unknown }).code === "ERR_CTXWIN_SESSION_CORRUPT") throw new InputError(`${where}: ${(error as Error).message}`);
    throw error;
  }
  await writeOutput(html, values.output as string | undefined, io);
  if (values.output !== undefined && values.output !== "-")
    io.stderr.write(`ctxwin: wrote ${values.output as string} (${Buffer.byteLength(html)} bytes)\n`);
  return 0;
}
