// The agent tools and notices on a MessageContextManager (context/agent-tools/): status(),
// requestCompaction() and the notes of each request. The manager keeps a few delegating lines;
// this file holds the work.
//
// A queued compaction runs at the start of the next getContextForRequest, the one point where no
// step is in flight. That call is synchronous, so the run takes the levels that plan at once (0,
// 1, 2 and the trim, not the summary, which waits for a model) down to half of what the request
// used, or of trimTo of the window if less. `keep` ids are pinned first (no trim or summary takes
// them) and restored verbatim after the run if a level cleared or cut them.
import type { CompactionLevelName } from "../compaction/compaction-level.js";
import type { AppliedEdit, HistoryEdit, HistoryView } from "../compaction/history-edit.js";
import type { CompactionReport, ProgressiveCompaction } from "../compaction/progressive-compaction.js";
import { messageId } from "../compaction/tool-events.js";
import { ROLE_CODES } from "../messages/roles.js";
import type { MessageLike } from "../messages/types.js";
import type { OmissionMarker } from "../messages/omission-marker.js";
import type { ContextLimits } from "../budget/context-limits.js";
import { plainError } from "../runtime/errors.js";
import { AgentState, type PendingCompaction } from "./agent-tools/agent-state.js";
import { composition, statusText, type ContextStatus } from "./agent-tools/context-status.js";
import type { CompactionRequest, CompactionRequestAnswer } from "./agent-tools/context-tools.js";
import type { CompactionPreview } from "./compaction-preview.js";
import type { HistoryEditor } from "./history-editor.js";
import type { NoticeEvent } from "./agent-tools/notices.js";

export type { CompactionRequest, CompactionRequestAnswer, ContextStatus };

/** What the manager lends this file: its history's parts, and its apply (events and policy). */
export interface ManagerParts<M extends MessageLike> {
  editor: HistoryEditor<M>;
  compaction: ProgressiveCompaction;
  apply: (edit: HistoryEdit<M>, level: CompactionLevelName) => AppliedEdit<M>;
  /** Holds the manager's own policy off while a queued compaction runs (its `clearing` flag), and lets it go again. */
  quiet: (on: boolean) => void;
}

/** What this file reads of the manager itself (public members). */
export interface ManagerOwner<M extends MessageLike> {
  readonly limits: ContextLimits;
  readonly trimAt: number;
  readonly trimTo: number;
  preview(options: { target: number }): Promise<CompactionPreview>;
  emit(event: "notice", notice: NoticeEvent): boolean;
  emit(event: "compacted", report: CompactionReport<M>): boolean;
  on(event: "compacted", listener: (report: CompactionReport<M>) => void): unknown;
}

export class ManagerAgent<M extends MessageLike> {
  readonly state: AgentState;
  /** The history as the levels read it (a live view, as the manager's own). */
  private readonly view: HistoryView<M>;
  /** A queued compaction is running: its report is recorded with its reason, not again from the event. */
  private running = false;

  constructor(
    notices: unknown,
    private readonly owner: ManagerOwner<M>,
    private readonly given: ManagerParts<M>,
  ) {
    this.view = given.editor.view();
    this.state = new AgentState(notices, (event) => owner.emit("notice", event));
    owner.on("compacted", (report) => this.observe(report));
  }

  status(): ContextStatus {
    const { editor } = this.given;
    const view = this.view;
    const { effectiveLimit, maxTokens: window } = this.owner.limits;
    const h = editor.history;
    let task = -1;
    for (let i = 0; i < h.length && task < 0; i++) if (h.roles[i] === ROLE_CODES.user && !view.isSummary(i)) task = i;
    const parts = composition(
      h.length,
      (i) => h.tokens[i] ?? 0,
      (i) =>
        h.roles[i] === ROLE_CODES.system
          ? "system"
          : view.isSummary(i)
            ? "summary"
            : i === task
              ? "task"
              : h.roles[i] === ROLE_CODES.tool
                ? "toolResults"
                : "messages",
    );
    parts.system += editor.systemTokens;
    parts.summary += h.markerTokens;
    const used = view.tokenUsage;
    const cost = editor.cache.cost;
    const pending = this.state.pending;
    return {
      window,
      limit: effectiveLimit,
      used,
      free: Math.max(0, effectiveLimit - used),
      percent: (used / Math.max(1, effectiveLimit)) * 100,
      components: parts,
      compactions: { total: this.state.log.total, recent: this.state.log.entries.slice() },
      ...(pending === undefined ? {} : { pending: { ...pending } }),
      ...(cost === undefined
        ? {}
        : { cost: { dollars: cost.session.dollars, requests: cost.session.requests, basis: "through the provider's prompt cache" } }),
    };
  }

  statusText(maxTokens?: number): string {
    return statusText(this.status(), this.view.counter, maxTokens);
  }

  /** The target a queued compaction runs down to. */
  private target(): number {
    const view = this.view;
    const { limits, trimTo } = this.owner;
    return Math.floor(Math.min(view.tokenUsage, limits.effectiveLimit * trimTo) / 2);
  }

  async requestCompaction(request: unknown): Promise<CompactionRequestAnswer> {
    const { editor } = this.given;
    const view = this.view;
    const ids = new Map<string, number>();
    view.messages.forEach((m, i) => ids.set(messageId(m), i));
    const pending = this.state.check(request, (id) => ids.has(id));
    for (const id of pending.keep) editor.history.mark(ids.get(id) as number);
    const preview = await this.owner.preview({ target: this.target() });
    this.state.pending = pending;
    return { queued: true, ...pending, preview };
  }

  /** At the start of a request: the queued compaction, if any, then the request counted. */
  beforeRequest(): void {
    const pending = this.state.pending;
    this.state.pending = undefined;
    if (pending !== undefined) this.run(pending);
    this.state.requests++;
  }

  private run(pending: PendingCompaction): void {
    const p = this.given;
    // What the agent named stays verbatim: pinned (no trim or summary takes it), and no level's rewrite of it applied.
    const kept = new Set<object>();
    this.view.messages.forEach((m, i) => {
      if (!pending.keep.includes(messageId(m))) return;
      kept.add(m);
      p.editor.history.mark(i);
    });
    const spare = (edit: HistoryEdit<M>): HistoryEdit<M> =>
      edit.kind === "replace"
        ? { ...edit, replacements: edit.replacements.filter(([i]) => !kept.has(this.view.messages[i] as object)) }
        : edit;
    const options = { threshold: 1, targetShare: 1, effectiveLimit: this.owner.limits.effectiveLimit, target: this.target() };
    this.running = true;
    p.quiet(true);
    try {
      const report = (() => {
        const run = p.compaction.run(this.view, options, p.compaction.immediateLevels);
        let step = run.next();
        while (!step.done) {
          const request = step.value;
          if (request.kind === "wait" && request.pause !== true)
            throw plainError(
              "ctxwin: a level that waits for its model ran in a requested compaction (a bug to report)",
              "ERR_CTXWIN_INTERNAL",
            );
          step = run.next(request.kind === "apply" ? p.apply(spare(request.edit), request.level.name) : undefined);
        }
        return step.value;
      })();
      p.quiet(false);
      if (pending.text !== undefined) this.state.carried = pending.text;
      report.tokensAfter = this.view.tokenUsage;
      this.state.compacted(report, this.openProblems(), pending.reason);
      this.owner.emit("compacted", report);
    } finally {
      p.quiet(false);
      this.running = false;
    }
  }

  private openProblems(): string[] {
    return this.given.compaction.problems.open.map((x) => x.label);
  }

  /** Every `compacted` report of the manager (the automatic ones): recorded for context_status and the notice. */
  observe(report: CompactionReport<M>): void {
    if (!this.running) this.state.compacted(report, this.openProblems());
  }

  /** `request` with this request's notes: the kept text after the system messages, the notices at the end. */
  decorate<R extends MessageLike | OmissionMarker>(request: R[]): Array<R | OmissionMarker> {
    const { limits, trimAt } = this.owner;
    // The notes are not in the manager's usage: each joins only while the request stays inside the window.
    const room = limits.effectiveLimit - this.view.tokenUsage;
    const { head, tail } = this.state.notesFor(this.view.tokenUsage, limits.effectiveLimit, trimAt, room, (note) =>
      this.view.counter.countMessages([note]),
    );
    if (head === undefined && tail.length === 0) return request;
    let at = 0;
    while (at < request.length && request[at]?.role === "system") at++;
    return [...request.slice(0, at), ...(head === undefined ? [] : [head]), ...request.slice(at), ...tail];
  }
}
