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
  compact: async () => (await import("./compact.js")).compactCommand,
  models: async () => (await import("./models.js")).modelsCommand,
  chat: async () => (await import("./chat/chat-command.js")).chatCommand,
};

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
    return await command(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`ctxwin: ${error.message}\n\n${error.command ? COMMANDS[error.command] : MAIN_USAGE}\n`);
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: unknown }).code;
    io.stderr.write(`ctxwin: ${message}${typeof code === "string" && code.startsWith("ERR_CTXWIN") && !(error instanceof InputError) ? ` (${code})` : ""}\n`);
    return 1;
  }
}
