// The agent tools and notices on an adapter's PromptFitter (context/agent-tools/): what
// context_status reads of the last prompt the fitter returned, the compactions it ran, the
// dollars of the usage reported to it; and the notes each prompt carries.
//
// A framework owns its history and hands the fitter the whole prompt at every model call, so the
// fitter's safe point is the start of fit(): a compaction compact_context queued runs there, on
// that call's prompt, whether or not the prompt fits. The notes ctxwin added to an earlier prompt
// are taken out of the prompt first (a framework may keep what prepareStep returned), so a notice
// reaches the model once.
import { resolveModel } from "../../catalog/model-registry.js";
import type { CompactionReport } from "../../compaction/progressive-compaction.js";
import { ROLE_CODES } from "../../messages/roles.js";
import type { MessageLike } from "../../messages/types.js";
import { MetadataReader } from "../../messages/metadata-reader.js";
import { messageTokens } from "../../tokens/message-tokens.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import { AgentState } from "../../context/agent-tools/agent-state.js";
import { composition, type ContextStatus } from "../../context/agent-tools/context-status.js";
import { isAgentNote } from "../../context/agent-tools/notices.js";
import type { NoticeEvent, NoticeOptions } from "../../context/agent-tools/notices.js";

/** The last prompt the fitter returned, as context_status reads it. */
interface LastPrompt {
  messages: readonly MessageLike[];
  tokens: number;
  budget: number;
  toolTokens: number;
}

export class FitterAgent {
  readonly state: AgentState;
  last: LastPrompt | undefined;
  private inputTokens = 0;
  private billed = 0;

  constructor(
    options: { notices?: NoticeOptions; onNotice?: (event: NoticeEvent) => void },
    private readonly model: string,
    private readonly counter: TokenCounter,
    private readonly window: number,
    /** Whether ctxwin wrote the message (a summary, a marker, a note). */
    private readonly inserted: (message: object) => boolean,
  ) {
    this.state = new AgentState(options.notices, (event) => options.onNotice?.(event));
  }

  /** `messages` without the notes ctxwin added to earlier prompts: the same array when it holds none (a usage is matched to its prompt by identity). */
  strip<M>(messages: readonly M[]): readonly M[] {
    return messages.some((m) => isAgentNote(m)) ? messages.filter((m) => !isAgentNote(m)) : messages;
  }

  /** Records the compactions of one call (`reason`: compact_context's, for the one it asked). */
  compacted(reports: ReadonlyArray<CompactionReport<MessageLike>>, openProblems: readonly string[], reason?: string): void {
    for (const report of reports) this.state.compacted(report, openProblems, reason);
  }

  /** A reported usage's input tokens, for the session's dollars. */
  observed(inputTokens: number): void {
    this.inputTokens += inputTokens;
    this.billed++;
  }

  /** `messages` with this call's notes: the kept text after the system messages, the notices at the end. */
  decorate<M>(messages: M[], tokens: number, budget: number): M[] {
    this.state.requests++;
    // The notes come after the fit: each joins only while the prompt stays within its budget.
    const empty = this.counter.countMessages([]);
    const { head, tail } = this.state.notesFor(tokens, budget, 1, budget - tokens, (note) => this.counter.countMessages([note]) - empty);
    if (head === undefined && tail.length === 0) return messages;
    let at = 0;
    while (at < messages.length && (messages[at] as MessageLike).role === "system") at++;
    return [...messages.slice(0, at), ...(head === undefined ? [] : [head as M]), ...messages.slice(at), ...(tail as M[])];
  }

  status(): ContextStatus {
    const last = this.last ?? { messages: [], tokens: 0, budget: this.window, toolTokens: 0 };
    const tokens = messageTokens(this.counter, last.messages);
    const reader = new MetadataReader({ orphanToolResults: "drop" });
    const facts = last.messages.map((m, i) => reader.read(m, i));
    let task = -1;
    for (let i = facts.length - 1; i >= 0 && task < 0; i--)
      if (facts[i]?.role === ROLE_CODES.user && !this.inserted(last.messages[i] as object) && !isAgentNote(last.messages[i])) task = i;
    const parts = composition(
      last.messages.length,
      (i) => tokens[i] ?? 0,
      (i) => {
        const m = last.messages[i] as MessageLike;
        if (facts[i]?.role === ROLE_CODES.system) return "system";
        if (this.inserted(m) || isAgentNote(m)) return "summary";
        if (i === task) return "task";
        return facts[i]?.role === ROLE_CODES.tool ? "toolResults" : "messages";
      },
    );
    parts.system += last.toolTokens;
    const prices = resolveModel(this.model)?.prices;
    const pending = this.state.pending;
    return {
      window: this.window,
      limit: last.budget,
      used: last.tokens,
      free: Math.max(0, last.budget - last.tokens),
      percent: (last.tokens / Math.max(1, last.budget)) * 100,
      components: parts,
      compactions: { total: this.state.log.total, recent: this.state.log.entries.slice() },
      ...(pending === undefined ? {} : { pending: { ...pending } }),
      ...(prices === undefined || this.billed === 0
        ? {}
        : {
            cost: {
              dollars: (this.inputTokens * prices.input) / 1e6,
              requests: this.billed,
              basis: "reported input tokens at the list price, output and cache discounts not included",
            },
          }),
    };
  }
}
