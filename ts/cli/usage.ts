// The command line's help texts and its argument parsing (node:util parseArgs), with the
// convention that a bad command line is a usage message on stderr and exit code 2.
import { fileURLToPath } from "node:url";
import { parseArgs, type ParseArgsConfig } from "node:util";

export const COMMANDS = {
  count: `Usage: ctxwin count [FILE... | -] [--model M] [--json]

Exact token counts of each file's text (or of standard input, "-"), and the total.
  -m, --model M   the model whose tokenizer counts (default gpt-4o); an id the catalog does not
                  know is counted with o200k_base, approximately, with a warning
      --json      one JSON object: model, encoding, exact, files[], total
A progress bar shows on stderr for inputs over 4 MB when stderr is a terminal.`,
  inspect: `Usage: ctxwin inspect FILE [--model M] [--window N] [--strategy S] [--json | --html [-o OUT]]

A conversation as the model would see it: tokens by component (system, tool definitions, user,
assistant, tool calls, tool results by tool name) with their share of the window, the largest
messages, and what the next trim would remove.
FILE: a ctxwin export, a session file (JSONL), a JSON array of messages, or a request body
({ messages, tools, system }); "-" reads standard input.
  -m, --model M      the model (default gpt-4o): tokenizer and window; an id the catalog
                     does not know is an error unless --window or --models gives its window
      --window N     take the window to be N tokens, all of them for the prompt
      --strategy S   the trim strategy: smart (default), sliding-window, token-budget, selective
      --json         the same as one JSON object
      --html         the same as one self-contained HTML page (on stdout, or -o OUT)
  -o, --output OUT   where --html writes the page ("-": stdout)`,
  report: `Usage: ctxwin report SESSION [-o OUT] [--model M] [--window N] [--output-tokens N] [--trim-at X] [--trim-to X]

A session's log (a FileSessionStore file, one JSON record per line) as one self-contained HTML
page: each request's tokens by component (system, task, summary, tool results, messages) as a
stacked chart, the window and the trim thresholds as lines, each compaction as a marker that opens
what it took (units and ids), the prompt cache and dollars per request, and the open problems over
time. Requests are recounted from the log with the model's tokenizer (the log records no usage).
  -o, --output OUT       write the page there (default: standard output)
  -m, --model M          the session's model (default gpt-4o): tokenizer, window, prices
      --window N         the window the manager was given (limits.maxTokens)
      --output-tokens N  the tokens it reserved for the response (limits.maxOutputTokens)
      --trim-at X        its compaction.trimAt (default 0.8)
      --trim-to X        its compaction.trimTo (default 0.6)
      --title TEXT       the page's title`,
  compact: `Usage: ctxwin compact FILE --target N [--model M] [--strategy S] [-o OUT | --dry-run]

Compacts a conversation offline to at most N tokens with ctxwin's progressive compaction and the
built-in extractive summarizer (no model, no network), and prints its report.
  -m, --model M      the model (default gpt-4o)
  -t, --target N     the token count to reach (required)
      --strategy S   the last level's trim strategy: smart, sliding-window, token-budget,
                     selective (default: smart, then token-budget)
  -o, --output OUT   write the compacted messages there as a JSON array ("-": stdout)
      --dry-run      print the plan (each message cleared, cut, summarized or dropped, the
                     tokens it frees, the request's tokens and input cost) and change nothing
      --json         the report (or the plan) as one JSON object`,
  models: `Usage: ctxwin models [ID] [--provider P] [--search TEXT] [--json]

The model catalog (models.dev's, through the npm package ctxwin derives it from): each model's
context window, output limit and prices in USD per 1M tokens. With ID: how that id resolves, from
which entry, and the prompt budget and tokenizer ctxwin uses for it; an ID that resolves to no
model but is part of some ("claude") lists those, as --search does.
  -p, --provider P      only provider P's models (a models.dev provider id: openai, amazon-bedrock, ...)
  -s, --search TEXT     only the models whose provider, id or name contains TEXT
      --json            the same as JSON`,
  chat: `Usage: ctxwin chat [--model M] [--offline] [--window N] [--system TEXT] [--provider P] [--resume ID]

An interactive chat whose context is kept by MessageContextManager: warnings at 80% and 90%,
an automatic trim after them, and the commands /help lists.
  -m, --model M      the model (default gpt-4o-mini; claude-sonnet-4-5 with Anthropic); an id the
                     catalog does not know is an error unless --window or --models gives its window
      --offline      use the built-in offline assistant even when an API key is set
      --provider P   openai (any OpenAI-compatible endpoint) or anthropic (default: from the keys)
      --window N     take the window to be N tokens, all of them for the prompt (trims show soon)
      --system TEXT  the system prompt
      --resume ID    continue session ID, saved earlier with /save, with its model and window
                     (--model and --window given here win)
      --store DIR    where /save keeps sessions (default ~/.ctxwin/sessions)
The model: OPENAI_API_KEY and/or OPENAI_BASE_URL (OpenAI, Ollama, vLLM, LM Studio, ...) or
ANTHROPIC_API_KEY; without any, the offline assistant.`,
} as const;

export type CommandName = keyof typeof COMMANDS;

// The package ships docs/cli.md (of docs/, only it): the help names the installed page, which exists wherever
// the command runs from, and the page in the repository.
const DOCS_PAGE = fileURLToPath(new URL("../../docs/cli.md", import.meta.url));
const DOCS_URL = "https://github.com/ctxwin/ctxwin/blob/main/docs/cli.md";

export const MAIN_USAGE = `Usage: ctxwin <command> [options]

Commands:
  count [FILE... | -]   exact token counts per file and in total
  inspect FILE          where a conversation's tokens go, and what the next trim removes
  report SESSION        a session's log as an HTML page: tokens per request, compactions, cost
  compact FILE          compact a conversation offline to a target
  models [ID]           the model catalog: windows, output limits, prices; how an id resolves
  chat                  an interactive chat that keeps its context inside the window

Every command takes --models FILE (repeatable): models to add, in models.dev's JSON format.
Run "ctxwin <command> --help" for a command's options.
Docs: ${DOCS_PAGE}
      ${DOCS_URL}`;

/** A bad command line: the message and the command's usage go to stderr, exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: CommandName,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

type Options = NonNullable<ParseArgsConfig["options"]>;

export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** parseArgs with the command's name on every error, and --help understood everywhere. */
export function parse(command: CommandName, args: string[], options: Options): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as ParsedArgs["values"], positionals };
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), command);
  }
}

/** A whole number >= minimum from an option's text, or a usage error naming the option. */
export function intOption(value: string | undefined, name: string, command: CommandName, minimum = 1): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value.replace(/_/g, ""));
  if (!/^\d[\d_]*$/.test(value) || !Number.isSafeInteger(n) || n < minimum) {
    throw new UsageError(`${name} must be a whole number >= ${minimum}, got "${value}"`, command);
  }
  return n;
}
