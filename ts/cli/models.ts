// `ctxwin models`: the model catalog (models.dev's, plus what --models FILE registers) with
// windows, output limits and prices, filtered by provider or text; `ctxwin models ID`: how one id
// resolves, from which entry, and what ctxwin plans with it (ContextLimits.forModel).
import { catalogSource, defaultModelRegistry, listModels } from "../catalog/model-registry.js";
import type { ModelEntry, ModelMatch, ModelPrices, ModelSource, ResolvedModel } from "../catalog/model-entry.js";
import { ContextLimits } from "../budget/context-limits.js";
import { native } from "../runtime/native.js";
import { encodingForModel } from "../tokens/tokenizer-choice.js";
import { num, paletteFor, type Io } from "./terminal.js";
import { COMMANDS, UsageError, parse } from "./usage.js";

const MATCHES: Record<ModelMatch, string> = {
  pattern: "a registered prefix pattern",
  exact: "the provider's own id",
  provider: "the model at the provider the id names",
  name: "the same model name in another spelling",
  family: "the same model with another date (the newest entry of its family)",
  variant: "the open-weight model without its chat-tuning suffix",
  alias: "an alias ctxwin adds for a name the catalog lacks",
  prefix: "the longest known model the id starts with (a variant of it)",
};

function sourceText(source: ModelSource): string {
  switch (source) {
    case "catalog":
      return `models.dev, through ${catalogSource()}`;
    case "supplement":
      return `models.dev's values for a model ${catalogSource()} lacks (ctxwin's supplement)`;
    case "compatibility":
      return "the specification's ContextLimits table (a compatibility row)";
    case "registered":
      return "registered at run time (registerModel, registerCatalog or --models)";
    case "ollama":
      return "Ollama's library (the model's own context length; an Ollama server runs num_ctx, 4,096 by default)";
  }
}

function dollars(value: number): string {
  return `$${value < 0.01 && value > 0 ? String(value) : value.toFixed(2).replace(/\.00$/, "")}`;
}

function pricesText(prices: ModelPrices | undefined): string {
  if (!prices) return "not published";
  const parts = [`${dollars(prices.input)} input`, `${dollars(prices.output)} output`];
  if (prices.cacheRead !== undefined) parts.push(`${dollars(prices.cacheRead)} cache read`);
  if (prices.cacheWrite !== undefined) parts.push(`${dollars(prices.cacheWrite)} cache write`);
  return `${parts.join(", ")} per 1M tokens`;
}

function describeResolution(id: string, resolved: ResolvedModel, io: Io): void {
  const colors = paletteFor(io.stdout, io.env);
  const limits = ContextLimits.forModel(id);
  const { encoding, exact } = encodingForModel(id);
  const rows: Array<[string, string]> = [
    ["resolves to", `${resolved.provider}/${resolved.id} (${resolved.name})`],
    ["matched by", `${resolved.match}: ${MATCHES[resolved.match]}`],
    ["names", native.modelNames(id).join(", ") || "-"],
    ["source", sourceText(resolved.source)],
    ["window", `${num(resolved.contextWindow)} tokens${resolved.maxInput ? ` (input at most ${num(resolved.maxInput)})` : ""}`],
    ["max output", resolved.maxOutput > 0 ? `${num(resolved.maxOutput)} tokens` : "not published"],
    ["prices", `${pricesText(resolved.prices)}${resolved.pricesFrom ? ` (from ${resolved.pricesFrom})` : ""}`],
    [
      "ctxwin plans",
      `${num(limits.maxOutputTokens)} for the response${limits.modelMaxOutput > limits.maxOutputTokens ? ` (less than the model's ${num(limits.modelMaxOutput)}: 20% of the window)` : ""}, ` +
        `${num(limits.reservedTokens)} margin: a prompt budget of ${num(limits.effectiveLimit)}`,
    ],
    ["counted with", `${encoding}, ${exact ? "exact" : "approximate"}`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  io.stdout.write(`${colors.bold(id)}\n`);
  for (const [label, value] of rows) io.stdout.write(`  ${colors.dim(label.padEnd(width))}  ${value}\n`);
}

function priceCell(value: number | undefined): string {
  return value === undefined ? "-" : dollars(value);
}

function table(models: ModelEntry[], io: Io): void {
  const colors = paletteFor(io.stdout, io.env);
  const header = ["model", "window", "max output", "input", "output", "cache read", "cache write"];
  const rows = models.map((m) => [
    `${m.provider}/${m.id}`,
    num(m.contextWindow),
    m.maxOutput > 0 ? num(m.maxOutput) : "-",
    priceCell(m.prices?.input),
    priceCell(m.prices?.output),
    priceCell(m.prices?.cacheRead),
    priceCell(m.prices?.cacheWrite),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] as string).length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join("  ");
  io.stdout.write(`${colors.bold(line(header).trimEnd())}\n`);
  for (const row of rows) io.stdout.write(`${line(row).trimEnd()}\n`);
  const providers = new Set(models.map((m) => m.provider)).size;
  io.stdout.write(
    colors.dim(
      `${num(models.length)} models from ${providers} provider${providers === 1 ? "" : "s"}; prices in USD per 1M tokens. Catalog: models.dev, through ${catalogSource()}.\n`,
    ),
  );
}

export async function modelsCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse("models", args, {
    json: { type: "boolean", default: false },
    provider: { type: "string", short: "p" },
    search: { type: "string", short: "s" },
  });
  if (values.help) {
    io.stdout.write(`${COMMANDS.models}\n`);
    return 0;
  }
  if (positionals.length > 1) throw new UsageError("at most one model ID", "models");
  const id = positionals[0];
  if (id !== undefined) {
    if (values.provider !== undefined || values.search !== undefined)
      throw new UsageError("--provider and --search filter the list: give them without an ID", "models");
    const resolved = defaultModelRegistry.resolve(id);
    if (!resolved) {
      // A word rather than an id ("claude"): what a user who types it wants is the list it names.
      const found = values.json ? [] : listModels({ search: id });
      if (found.length > 0) {
        io.stderr.write(
          `ctxwin: "${id}" is no model id; the models whose provider, id or name contains it (ctxwin models --search ${id}):\n`,
        );
        table(found, io);
        return 0;
      }
      const closest = defaultModelRegistry.closest(id, 3);
      io.stderr.write(
        `ctxwin: unknown model "${id}"${closest.length > 0 ? `; closest known: ${closest.join(", ")}` : ""}. Register it with --models FILE (models.dev's JSON format); ctxwin models --search TEXT lists the known ids.\n`,
      );
      return 1;
    }
    if (values.json) {
      const limits = ContextLimits.forModel(id);
      const { encoding, exact } = encodingForModel(id);
      const plan = {
        responseReserve: limits.maxOutputTokens,
        reservedTokens: limits.reservedTokens,
        effectiveLimit: limits.effectiveLimit,
      };
      io.stdout.write(`${JSON.stringify({ ...resolved, names: native.modelNames(id), plan, encoding, exactCounts: exact }, null, 2)}\n`);
    } else {
      describeResolution(id, resolved, io);
    }
    return 0;
  }
  const models = listModels({ provider: values.provider as string | undefined, search: values.search as string | undefined });
  if (values.json) {
    io.stdout.write(`${JSON.stringify(models, null, 2)}\n`);
    return 0;
  }
  if (models.length === 0) {
    io.stderr.write(
      `ctxwin: no model matches${values.provider !== undefined ? ` --provider ${values.provider}` : ""}${values.search !== undefined ? ` --search ${values.search}` : ""}\n`,
    );
    return 1;
  }
  table(models, io);
  return 0;
}
