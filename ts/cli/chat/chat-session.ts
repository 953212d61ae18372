// The chat of `ctxwin chat` without the terminal: its turns, commands, warnings and trims on a
// MessageContextManager. The command feeds it lines and shows what it writes.
//
// When the automatic trim runs. The chat trims "at 80%" and also promises, at 90%, "one more turn
// before auto-trim". Both hold, in this order, in a growing session:
//   - crossing 80% shows the yellow warning after that response ("Consider /clear or /save."),
//   - crossing 90% shows the orange warning after that response ("Auto-trimming soon."),
//   - the user has one more turn with the whole context; after its response the context is
//     trimmed (to 80%, with the mode's strategy: first 2 and last 10 turns) and the notice shows
//     before the next prompt.
// One exception keeps the model's window safe: a message that would not fit (over 100% of the
// prompt budget) trims first, before the request is sent, and says so.
import { readFile, writeFile } from "node:fs/promises";
import { MessageContextManager } from "../../context/message-context-manager.js";
import { SmartTruncationStrategy } from "../../truncation/strategies.js";
import type { SessionStore } from "../../session/store.js";
import { replay } from "../../session/context-log.js";
import { extractiveSummarizer } from "../../models/extractive-summarizer.js";
import { encodingForModel } from "../../tokens/tokenizer-choice.js";
import { analyzeContext, limitsFor, renderContextView } from "../inspect.js";
import { num, type Palette } from "../terminal.js";
import type { Assistant, ChatMessage, Usage } from "./assistant.js";
import type { MessageContextManagerOptions, TrimEvent } from "../../context/options.js";
import type { ContextWarning } from "../../context/usage-warnings.js";

export const HELP = `Commands:
  /stats          tokens used (the running total), the window, messages, trims
  /context        where the context's tokens go, and what the next trim removes
  /clear          drop the conversation (the session and its metadata stay)
  /compact [N]    compact now, offline, to N tokens (default: half of what is used)
  /export FILE    write the context and its metadata to FILE (JSON)
  /import FILE    load a context written by /export into this session
  /save           save the session to the session store
  /model [NAME]   show the model, or switch to NAME (the context is recounted)
  /help           this list
  /exit           leave (also Ctrl-D)`;

export interface ChatSessionOptions {
  model: string;
  assistant: Assistant;
  /** Makes the assistant for another model (/model NAME). */
  switchAssistant?: (model: string) => Promise<Assistant>;
  window?: number;
  system?: string;
  /** Where /save keeps the session (and --resume finds it); `storeDir` names it for the reader. */
  store?: SessionStore;
  storeDir?: string;
  colors: Palette;
  write: (text: string) => void;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function managerOptions(model: string, window: number | undefined): MessageContextManagerOptions<ChatMessage> {
  return {
    model,
    limits: limitsFor(model, window),
    compaction: {
      // The chat decides when to trim (see the top of this file); the manager warns and counts.
      autoTruncate: false,
      // The chat's trim keeps the first 2 and the last 10 turns and drops the turns between, as its
      // specification says (the default mode's strategy drops only as many as its target needs).
      strategy: new SmartTruncationStrategy(),
      summarizer: extractiveSummarizer(),
      // The chat keeps its summaries as system messages (its /stats counts them with the prompt, and
      // its Anthropic assistant sends later system text as user text), as it did before the
      // manager's default became "user".
      summaryRole: "system",
    },
  };
}

/** The chat's metadata: the manager's own, which an export carries (session_id and times are the manager's). */
const AGENT = "ctxwin chat";

/**
 * The model and window a saved chat ran with (its metadata's `chat_model` and `chat_window`, kept
 * at every /save, /model and turn): what `--resume` comes back with unless a flag says otherwise.
 */
export async function savedChatSettings(store: SessionStore, id: string): Promise<{ model?: string; window?: number }> {
  if ((await store.info(id)) === undefined) return {};
  const metadata = replay((await store.read(id)).map((r) => r.entry)).metadata ?? {};
  const model = metadata.chat_model;
  const window = metadata.chat_window;
  return {
    ...(typeof model === "string" && model !== "" ? { model } : {}),
    ...(typeof window === "number" && Number.isSafeInteger(window) && window >= 64 ? { window } : {}),
  };
}

export class ChatSession {
  context: MessageContextManager<ChatMessage>;
  assistant: Assistant;
  model: string;
  private readonly colors: Palette;
  private readonly write: (text: string) => void;
  private readonly window: number | undefined;
  private readonly switchAssistant: ((model: string) => Promise<Assistant>) | undefined;
  private warnings: ContextWarning[] = [];
  private notice: string | undefined;
  /** Set when the 90% warning has been shown: the trim follows the next turn. */
  private trimAfterNextTurn = false;
  private trims = 0;
  private trimmedMessages = 0;
  private turns = 0;
  private lastUsage: (Usage & { counted: number }) | undefined;
  /** Aborts the reply being streamed (Ctrl-C). */
  abort: AbortController | undefined;
  private readonly store: SessionStore | undefined;
  private readonly storeDir: string;
  /** True once the context lives in the store (after /save, or with --resume). */
  private saved = false;

  private constructor(options: ChatSessionOptions, context: MessageContextManager<ChatMessage> | undefined) {
    this.model = options.model;
    this.assistant = options.assistant;
    this.switchAssistant = options.switchAssistant;
    this.window = options.window;
    this.colors = options.colors;
    this.write = options.write;
    this.store = options.store;
    this.storeDir = options.storeDir ?? "the session store";
    this.saved = context !== undefined;
    this.context = this.attach(context ?? new MessageContextManager<ChatMessage>(this.managerOptions(options.model)));
    // The chat's start, kept in the session's metadata: a saved session's log (and so its
    // created_at) begins at /save, but the conversation began here.
    const startedAt =
      typeof this.context.metadata.started_at === "string" ? this.context.metadata.started_at : this.context.export().metadata.created_at;
    this.context.metadata = { ...this.context.metadata, agent: AGENT, started_at: startedAt };
    this.keepSettings();
    if (options.system) this.context.setSystemPrompt(options.system);
  }

  /** The model and window in the session's metadata, for --resume (savedChatSettings). */
  private keepSettings(): void {
    const { chat_window: _window, ...rest } = this.context.metadata;
    this.context.metadata = { ...rest, chat_model: this.model, ...(this.window !== undefined ? { chat_window: this.window } : {}) };
  }

  /** A new chat, or (`resume`) the saved session of that id, continued where it was. */
  static async start(options: ChatSessionOptions & { resume?: string }): Promise<ChatSession> {
    if (options.resume === undefined) return new ChatSession(options, undefined);
    if (!options.store) throw new Error("--resume needs a session store");
    if ((await options.store.info(options.resume)) === undefined)
      throw new Error(`no saved session "${options.resume}" in ${options.storeDir ?? "the store"}`);
    const context = await MessageContextManager.open<ChatMessage>({
      ...managerOptions(options.model, options.window),
      session: { store: options.store, id: options.resume },
    });
    return new ChatSession(options, context);
  }

  private managerOptions(model: string): MessageContextManagerOptions<ChatMessage> {
    return managerOptions(model, this.window);
  }

  private attach(context: MessageContextManager<ChatMessage>): MessageContextManager<ChatMessage> {
    context.on("warning", (w) => this.warnings.push(w));
    context.on("trimmed", (t) => {
      this.trims++;
      this.trimmedMessages += t.removed.length;
    });
    return context;
  }

  get sessionId(): string {
    return this.context.sessionId;
  }

  /** Waits until everything is in the store (before the process exits). */
  async close(): Promise<void> {
    if (this.saved) await this.context.flush();
  }

  /** The banner's description of the window. */
  describeWindow(): string {
    const l = this.context.limits;
    const { encoding, exact } = encodingForModel(this.model);
    const counting = exact ? `${encoding}, exact` : `${encoding}, approximate for this model`;
    return this.window !== undefined
      ? `window ${num(l.effectiveLimit)} tokens (--window), counted with ${counting}`
      : `window ${num(l.maxTokens)} tokens, ${num(l.effectiveLimit)} for the prompt, counted with ${counting}`;
  }

  /** What goes on the screen just before the prompt: the trim notice, once. */
  beforePrompt(): void {
    if (this.notice) {
      this.write(`${this.colors.cyan(this.notice)}\n`);
      this.notice = undefined;
    }
  }

  /** Handles one line; "quit" ends the chat. */
  async handle(line: string): Promise<"continue" | "quit"> {
    const text = line.trim();
    if (text === "") return "continue";
    if (text.startsWith("/")) return this.command(text);
    await this.turn(text);
    return "continue";
  }

  private async turn(text: string): Promise<void> {
    const user: ChatMessage = { role: "user", content: text };
    if (!this.context.canAdd(user) && this.context.getMessages().length > 0) {
      // It would not fit the window at all: trim now rather than send a request that fails.
      const event = this.context.truncate();
      if (event) this.write(`${this.colors.cyan(`${event.message} (the next message would not have fit)`)}\n`);
      this.trimAfterNextTurn = false;
    }
    if (!this.context.canAdd(user)) {
      this.write(
        `${this.colors.red(`That message does not fit the window (${num(this.context.counter.countMessages([user]))} tokens, ${num(this.context.availableTokens)} free).`)}\n`,
      );
      return;
    }
    const request = [...this.context.getContextForRequest(), user] as ChatMessage[];
    const usage: Usage = {};
    let reply = "";
    this.write(this.colors.green("assistant> "));
    this.abort = new AbortController();
    try {
      for await (const delta of this.assistant.reply(request, usage, this.abort.signal)) {
        reply += delta;
        this.write(delta);
      }
    } catch (error) {
      // Nothing was added: the failed turn leaves the context as it was.
      this.write(`\n${this.colors.red(`Model error: ${error instanceof Error ? error.message : String(error)}`)}\n`);
      return;
    } finally {
      this.abort = undefined;
    }
    this.write("\n");
    this.context.addMessage(user);
    if (usage.inputTokens !== undefined) {
      this.lastUsage = { ...usage, counted: this.context.counter.countMessages(request) };
      // The provider's figure is for what was sent: the context with this user message, which is
      // the manager's request now (the user message goes in only after a reply, so that a failed
      // turn changes nothing). Anchored on it, /stats and the warnings use the provider's total.
      this.context.getContextForRequest();
      try {
        this.context.observeUsage({ inputTokens: usage.inputTokens });
      } catch (error) {
        // A figure no provider should send (negative, fractional): the local count stands.
        this.write(`${this.colors.red(`Ignored the provider's usage: ${(error as Error).message}`)}\n`);
      }
    }
    this.context.addMessage({ role: "assistant", content: reply });
    this.turns++;
    this.afterTurn();
  }

  /** After a response: its warnings, then the trim the 90% warning announced one turn ago. */
  private afterTurn(): void {
    const shown90 = this.showWarnings();
    if (this.trimAfterNextTurn && this.context.tokenUsage > Math.floor(this.context.limits.effectiveLimit * this.context.trimAt)) {
      this.trimNow();
    } else if (shown90) {
      this.trimAfterNextTurn = true;
    }
  }

  private trimNow(): void {
    const event: TrimEvent<ChatMessage> | undefined = this.context.truncate();
    this.trimAfterNextTurn = false;
    if (event) this.notice = event.message;
  }

  /** The warnings, yellow at 80% and orange at 90%; true when the 90% one was shown. */
  private showWarnings(): boolean {
    let shown90 = false;
    for (const w of this.warnings) {
      if (w.level === 80) this.write(`${this.colors.yellow(w.message)}\n`);
      else {
        this.write(`${this.colors.orange(w.message)}\n`);
        shown90 = true;
      }
    }
    this.warnings = [];
    return shown90;
  }

  private async command(text: string): Promise<"continue" | "quit"> {
    const [name = "", ...rest] = text.split(/\s+/);
    const arg = text.slice(name.length).trim();
    switch (name) {
      case "/exit":
      case "/quit":
        return "quit";
      case "/help":
        this.write(`${HELP}\n`);
        break;
      case "/stats":
        this.write(`${this.stats()}\n`);
        break;
      case "/context":
        this.write(`${this.contextView()}\n`);
        break;
      case "/clear":
        this.context.clear();
        this.warnings = [];
        this.trimAfterNextTurn = false;
        this.write(`Context cleared. Session ${this.sessionId} goes on (its metadata is kept).\n`);
        break;
      case "/compact":
        await this.compact(rest[0]);
        break;
      case "/model":
        await this.switchModel(arg);
        break;
      case "/export":
        await this.exportTo(arg);
        break;
      case "/import":
        await this.importFrom(arg);
        break;
      case "/save":
        await this.save();
        break;
      default:
        this.write(`${this.colors.red(`Unknown command ${name}.`)} Type /help for the commands.\n`);
    }
    return "continue";
  }

  /** /export: the turns and the metadata (session_id, agent, timestamps) as JSON. */
  private async exportTo(file: string): Promise<void> {
    if (file === "") return void this.write(`${this.colors.red("/export needs a FILE")}\n`);
    const data = this.context.export();
    try {
      await writeFile(file, `${JSON.stringify(data, null, 2)}\n`);
    } catch (error) {
      return void this.write(`${this.colors.red(`Cannot write ${file}: ${(error as Error).message}`)}\n`);
    }
    this.write(`Exported ${data.turns.length} turns of session ${data.metadata.session_id} to ${file}.\n`);
  }

  /** /import: validated first; a bad file changes nothing. */
  private async importFrom(file: string): Promise<void> {
    if (file === "") return void this.write(`${this.colors.red("/import needs a FILE")}\n`);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      return void this.write(`${this.colors.red(`Cannot read ${file}: ${(error as Error).message}`)}\n`);
    }
    try {
      this.context.import(text);
      this.keepSettings(); // the file's chat_model is another chat's
    } catch (error) {
      return void this.write(`${this.colors.red(`Not imported: ${(error as Error).message}`)}\n`);
    }
    const stats = this.context.getStats();
    this.trimAfterNextTurn = false;
    this.write(
      `Imported ${stats.messageCount} messages from ${file}: ${num(stats.tokenUsage)} tokens (${stats.usagePercentage.toFixed(1)}%).\n`,
    );
    this.afterTurn();
  }

  /** /save: the session goes to the store, and every later change with it. */
  private async save(): Promise<void> {
    if (!this.store) return void this.write(`${this.colors.red("No session store.")}\n`);
    try {
      if (!this.saved) {
        const warned = this.warnings;
        const context = MessageContextManager.fromExport<ChatMessage>(this.context.export(), {
          ...this.managerOptions(this.model),
          session: { store: this.store, id: this.context.sessionId },
        });
        await context.ready;
        await context.flush();
        this.context = this.attach(context);
        this.warnings = warned;
        this.saved = true;
      } else {
        await this.context.flush();
      }
    } catch (error) {
      return void this.write(`${this.colors.red(`Not saved: ${(error as Error).message}`)}\n`);
    }
    this.write(
      `Saved session ${this.sessionId} (${this.context.getStats().messageCount} messages) in ${this.storeDir}; every change from now on is saved too.\n` +
        `Resume it with: ctxwin chat --resume ${this.sessionId}${this.storeDir.startsWith("the ") ? "" : ` --store ${this.storeDir}`}\n`,
    );
  }

  private stats(): string {
    const s = this.context.getStats();
    const c = this.colors;
    const meta = this.context.export().metadata;
    const lines = [
      `${c.bold("Session")} ${this.sessionId} (${String(meta.agent ?? AGENT)}, since ${typeof meta.started_at === "string" ? meta.started_at : meta.created_at}${this.saved ? `, saved in ${this.storeDir}` : ", not saved"})`,
      `${c.bold("Model")}   ${this.model}: ${this.assistant.offline ? "offline assistant" : this.assistant.description}`,
      `${c.bold("Context")} ${num(s.tokenUsage)} of ${num(this.context.limits.effectiveLimit)} tokens (${s.usagePercentage.toFixed(1)}%), ${num(s.availableTokens)} free`,
      `${c.bold("Messages")} ${s.messageCount}: ${s.byRole.user} user, ${s.byRole.assistant} assistant${s.byRole.system ? `, ${s.byRole.system} system (prompt or summary)` : ""}; ${plural(this.turns, "turn")} this session`,
      `${c.bold("Trims")}   ${this.trims}${this.trims > 0 ? ` (${plural(this.trimmedMessages, "message")} removed)` : ""}; ${this.trimAfterNextTurn ? c.orange("the automatic trim follows the next turn") : "warnings at 80% and 90%, then a trim after one more turn"}`,
    ];
    if (this.lastUsage) {
      const anchor = s.anchored ? "; the context total is the provider's figure plus what was added since" : "";
      lines.push(
        `${c.bold("Last request")} the provider reported ${num(this.lastUsage.inputTokens ?? 0)} input tokens; ctxwin counted ${num(this.lastUsage.counted)}${anchor}`,
      );
    }
    return lines.join("\n");
  }

  contextView(): string {
    const messages = this.context.getContextForRequest() as ChatMessage[];
    const view = analyzeContext(
      { messages, tools: [], format: "chat" },
      { model: this.model, counter: this.context.counter, limits: this.context.limits, strategy: this.context.strategy },
    );
    const text = renderContextView(view, this.colors, `Context of session ${this.sessionId}: ${messages.length} messages`);
    return this.trimAfterNextTurn ? `${text}\n  ${this.colors.orange("The automatic trim runs after the next turn.")}` : text;
  }

  private async compact(target: string | undefined): Promise<void> {
    const used = this.context.tokenUsage;
    const goal = target === undefined ? Math.floor(used / 2) : Number(target);
    if (!Number.isInteger(goal) || goal < 1) {
      this.write(`${this.colors.red(`/compact takes a token count, got "${target}"`)}\n`);
      return;
    }
    if (used <= goal) {
      this.write(`Nothing to compact: ${num(used)} tokens used, the target is ${num(goal)}.\n`);
      return;
    }
    const threshold = Math.min(1, (goal + 0.5) / this.context.limits.effectiveLimit);
    const report = await this.context.compactIfNeeded({ threshold });
    const applied = report.levels.filter((l) => l.applied && l.messagesChanged > 0).map((l) => l.name.replace(/_/g, " "));
    this.write(
      `Compacted offline: ${num(report.tokensBefore)} -> ${num(report.tokensAfter)} tokens (${applied.length > 0 ? applied.join(", ") : "nothing could be removed"}).\n`,
    );
    this.warnings = [];
    this.trimAfterNextTurn = false;
  }

  private async switchModel(name: string): Promise<void> {
    if (name === "") {
      this.write(`${this.model}: ${this.assistant.description}; ${this.describeWindow()}\n`);
      return;
    }
    let options: MessageContextManagerOptions<ChatMessage>;
    try {
      options = this.managerOptions(name); // an unknown id: the chat goes on with the model it has
    } catch (error) {
      return void this.write(`${this.colors.red(`Model not switched: ${(error as Error).message}`)}\n`);
    }
    const assistant = this.switchAssistant ? await this.switchAssistant(name) : this.assistant;
    const before = this.context;
    // The same context (turns, marker, summaries, system prompt, metadata), counted for the new model.
    await before.flush();
    const next = MessageContextManager.fromExport<ChatMessage>(before.export(), {
      ...options,
      ...(this.saved && this.store ? { session: { store: this.store, id: before.sessionId } } : {}),
    });
    await next.ready;
    this.context = this.attach(next);
    this.model = name;
    this.keepSettings();
    this.assistant = assistant;
    this.warnings = [];
    this.write(
      `Model ${name}: ${assistant.description}; ${this.describeWindow()}. The context is ${num(next.tokenUsage)} tokens with its tokenizer.\n`,
    );
    this.afterTurn();
  }
}
