// Dispatches a command line to its command and turns failures into exit codes: a UsageError is
// exit 2 with the command's usage, any other error exit 1 with its message (no stack trace: the
// reader is a person at a shell).
import { InputError } from "./input.js";
import type { Io } from "./terminal.js";
import { COMMANDS, MAIN_USAGE, UsageError, type CommandName } from "./usage.js";

type Command = (args: string[], io: Io) => Promise<number>;

// Each command is loaded when it runs: `ctxwin models` need not load the chat's providers.
const commands: Record<CommandName, () => Promise<Command>> = {
  count: async () => (await import("./count.js")).countCommand,
  inspect: async () => (await import("./inspect.js")).inspectCommand,
  report: async () => (await import("./report.js")).reportCommand,
  compact: async () => (await import("./compact.js")).compactCommand,
  models: async () => (await import("./models.js")).modelsCommand,
  chat: async () => (await import("./chat/chat-command.js")).chatCommand,
};

/**
 * Registers the models of every `--models FILE` (or `--models=FILE`) in `args`, files in models.dev's
 * JSON format, and returns the other arguments for the command. A file that cannot be read or
 * does not hold such a catalog stops the command before it runs.
 */
async function registerModelFiles(args: string[], command: CommandName): Promise<string[]> {
  const rest: string[] = [];
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      rest.push(...args.slice(i));
      break;
    }
    if (arg === "--models") {
      const file = args[i + 1];
      if (file === undefined || file.startsWith("-"))
        throw new UsageError("--models needs a FILE (a model catalog in models.dev's JSON format)", command);
      files.push(file);
      i++;
    } else if (arg.startsWith("--models=")) {
      files.push(arg.slice("--models=".length));
    } else {
      rest.push(arg);
    }
  }
  if (files.length === 0) return rest;
  const [{ readFile }, { registerCatalog }] = await Promise.all([import("node:fs/promises"), import("../catalog/model-registry.js")]);
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      throw new InputError(
        `--models ${file}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : error instanceof Error ? error.message : String(error)}`,
      );
    }
    try {
      registerCatalog(text);
    } catch (error) {
      throw Object.assign(new Error(`--models ${file}: ${error instanceof Error ? error.message : String(error)}`), {
        code: (error as { code?: unknown }).code,
      });
    }
  }
  return rest;
}

export async function runCli(argv: string[], io: Io): Promise<number> {
  const [name, ...args] = argv;
  try {
    if (name === undefined || name === "help" || name === "--help" || name === "-h") {
      (name === undefined ? io.stderr : io.stdout).write(`${MAIN_USAGE}\n`);
      return name === undefined ? 2 : 0;
    }
    if (name === "--version" || name === "-v") {
      const { createRequire } = await import("node:module");
      io.stdout.write(`${(createRequire(import.meta.url)("../../package.json") as { version: string }).version}\n`);
      return 0;
    }
    if (!Object.hasOwn(commands, name)) throw new UsageError(`unknown command "${name}"`);
    const command = await commands[name as CommandName]();
    return await command(await registerModelFiles(args, name as CommandName), io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`ctxwin: ${error.message}\n\n${error.command ? COMMANDS[error.command] : MAIN_USAGE}\n`);
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: unknown }).code;
    io.stderr.write(
      `ctxwin: ${message}${typeof code === "string" && code.startsWith("ERR_CTXWIN") && !(error instanceof InputError) ? ` (${code})` : ""}\n`,
    );
    return 1;
  }
}
