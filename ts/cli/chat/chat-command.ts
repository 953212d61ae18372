// `ctxwin chat`: the terminal side of the chat (node:readline): the banner, the prompt, Ctrl-C
// and Ctrl-D. Everything the chat does is in ChatSession.
import { homedir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { FileSessionStore } from "../../session/file-store.js";
import { paletteFor, type Io } from "../terminal.js";
import { COMMANDS, UsageError, intOption, parse } from "../usage.js";
import { chooseAssistant, type ProviderName } from "./assistant.js";
import { ChatSession, savedChatSettings } from "./chat-session.js";

export async function chatCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse("chat", args, {
    model: { type: "string", short: "m" },
    offline: { type: "boolean", default: false },
    provider: { type: "string" },
    window: { type: "string" },
    system: { type: "string" },
    resume: { type: "string" },
    store: { type: "string" },
  });
  if (values.help) {
    io.stdout.write(`${COMMANDS.chat}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`, "chat");
  const provider = values.provider as string | undefined;
  if (provider !== undefined && provider !== "openai" && provider !== "anthropic")
    throw new UsageError(`--provider must be openai or anthropic, got "${provider}"`, "chat");
  if (provider !== undefined && values.offline) throw new UsageError("--provider and --offline contradict each other", "chat");
  const colors = paletteFor(io.stdout, io.env);
  const write = (text: string) => void io.stdout.write(text);
  const storeDir = (values.store as string | undefined) ?? join(homedir(), ".ctxwin", "sessions");
  const store = new FileSessionStore({ directory: storeDir });
  // A resumed chat comes back with the model and window it had (/model and --window were saved
  // with it); a flag given to the resuming command wins.
  const saved = values.resume ? await savedChatSettings(store, values.resume as string) : {};
  const window = intOption(values.window as string | undefined, "--window", "chat", 64) ?? saved.window;
  const model = (values.model as string | undefined) ?? saved.model;

  const choice = await chooseAssistant(
    {
      offline: values.offline as boolean,
      ...(provider ? { provider: provider as ProviderName } : {}),
      ...(model ? { model } : {}),
    },
    io.env,
  );
  const session = await ChatSession.start({
    model: choice.model,
    assistant: choice.assistant,
    ...(choice.assistant.offline
      ? {}
      : {
          switchAssistant: async (model: string) =>
            (await chooseAssistant({ offline: false, ...(provider ? { provider: provider as ProviderName } : {}), model }, io.env))
              .assistant,
        }),
    ...(window !== undefined ? { window } : {}),
    ...(values.system ? { system: values.system as string } : {}),
    ...(values.resume ? { resume: values.resume as string } : {}),
    store,
    storeDir,
    colors,
    write,
  });

  write(`${colors.bold("ctxwin chat")}: ${choice.model}, ${session.describeWindow()}\n`);
  write(
    `${choice.assistant.offline ? colors.yellow(`Offline assistant: it is not a language model.`) + ` It answers deterministically from what it receives (ctxwin's extractive summarizer), to show the context at work.${choice.note ? ` (${choice.note}.)` : ""}` : `Model: ${choice.assistant.description}`}\n`,
  );
  write(`Session ${session.sessionId}. Type /help for the commands, /exit or Ctrl-D to leave.\n`);

  const terminal = io.stdin.isTTY === true && io.stdout.isTTY === true;
  const rl = createInterface({ input: io.stdin, output: io.stdout, terminal, historySize: 200 });
  rl.setPrompt(colors.bold("you> "));
  // Ctrl-C stops a reply that is streaming; at the prompt it leaves, as Ctrl-D does.
  rl.on("SIGINT", () => {
    if (session.abort) session.abort.abort();
    else rl.close();
  });
  // Piped input can end while a reply streams: readline closes, and the lines it had read still
  // come. Node 26 refuses prompt() on a closed interface (ERR_USE_AFTER_CLOSE), so the prompt is
  // written directly then, as Node 20 to 24 did.
  let closed = false;
  rl.on("close", () => (closed = true));
  const prompt = () => (closed ? write(colors.bold("you> ")) : rl.prompt());
  session.beforePrompt();
  prompt();
  for await (const line of rl) {
    // A terminal echoes what was typed; from a pipe, the transcript shows it after the prompt.
    if (!terminal) write(`${line}\n`);
    if ((await session.handle(line)) === "quit") break;
    session.beforePrompt();
    prompt();
  }
  rl.close();
  await session.close();
  await store.close();
  write(`\nSession ${session.sessionId} ended.\n`);
  return 0;
}
