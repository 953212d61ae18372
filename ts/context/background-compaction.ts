// The one compaction a manager runs at a time, in the background of addMessage (summaries wait for
// the model, addMessage never does): a second start while one runs gets the same promise, and when
// a run ends the manager's policy looks at the history again.
import type { CompactionLevelName } from "../compaction/compaction-level.js";
import type { AppliedEdit, HistoryEdit, HistoryView } from "../compaction/history-edit.js";
import { type CompactionReport, driveRun, type ProgressiveCompaction, type RunOptions } from "../compaction/progressive-compaction.js";
import type { MessageLike } from "../messages/types.js";

export interface BackgroundCompactionHooks<M> {
  /** Applies one level's edit to the history. */
  apply(edit: HistoryEdit<M>, level: CompactionLevelName): AppliedEdit<M>;
  /** A run ended (the manager's 'compacted' event). */
  done(report: CompactionReport<M>): void;
  /** A count that changes whenever the whole history is replaced, a message added or a system prompt set (HistoryEditor.arrivals). */
  arrivals(): number;
  /** The manager's policy, run again after a run. */
  lookAgain(): void;
}

export class BackgroundCompaction<M extends MessageLike> {
  /** The run going on, if any. */
  running: Promise<CompactionReport<M>> | undefined;

  constructor(
    private readonly compaction: ProgressiveCompaction,
    private readonly view: HistoryView<M>,
    private readonly hooks: BackgroundCompactionHooks<M>,
  ) {}

  /** Runs the levels from `threshold` of `effectiveLimit` down to `targetShare`, unless a run is going on: then that run. */
  start(options: RunOptions): Promise<CompactionReport<M>> {
    if (this.running !== undefined) return this.running;
    const arrivals = this.hooks.arrivals();
    // `running` is set before the first level's edit is applied, so that the policy run after
    // that edit finds it and starts no other.
    let start!: (report: Promise<CompactionReport<M>>) => void;
    this.running = new Promise<CompactionReport<M>>((resolve) => (start = resolve))
      .then((report) => {
        this.hooks.done(report);
        return report;
      })
      .finally(() => {
        this.running = undefined;
      })
      .then((report) => {
        // While this ran, the history may have grown past trimAt again (its own summary beside the
        // user's kept words, messages added meanwhile) or been replaced (a session conflict brought
        // another worker's messages): the policy, which found a compaction running, looks again.
        // A run that started early, for the summarizer's input alone, may have found nothing to
        // do while the messages added meanwhile crossed the threshold: a manager opened on the
        // same history would compact it, so this one must too. Only after a run that changed
        // something, a replaced history or one that grew, so that a history nothing can shrink
        // does not start run after run.
        const changed = report.levels.some((level) => level.messagesChanged > 0);
        if (changed || this.hooks.arrivals() !== arrivals) this.hooks.lookAgain();
        return report;
      });
    start(driveRun(this.compaction.run(this.view, options), (edit, level) => this.hooks.apply(edit, level.name)));
    return this.running;
  }
}
