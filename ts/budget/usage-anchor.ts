// A running total anchored on the provider's reported usage: ContextTracker and
// MessageContextManager both count locally, and once a response reports the input tokens of the
// request it answered, the total becomes that figure plus the (scaled) counts of what was added
// since. A usage is matched to the request it belongs to: when the conversation was rewritten
// since (trimmed, compacted, replaced, a new system prompt), it describes another request and is
// ignored with a warning.
import { consoleLogger, type Logger } from "../runtime/logger.js";
import { reportedInputTokens, type ReportedUsage, type UsageCalibration } from "./usage-calibration.js";

/** Why a usage could not be matched, in the words of the owner's own API. */
export interface UnmatchedUsage {
  /** No request was recorded yet. */
  noRequest: string;
  /** The conversation was rewritten since the request was recorded. */
  rewritten: string;
}

export class UsageAnchor {
  /** Bumped by every change that is not an append: a usage from before it describes another request. */
  private rewrites = 0;
  /** The request last recorded, for matching a reported usage to it. */
  private lastRequest: { rewrites: number; counted: number } | undefined;
  /** The reported usage the total builds on (dropped by any rewrite), and the local count it replaced. */
  private anchor: { reported: number; counted: number } | undefined;

  constructor(
    /** The model whose reported-to-counted ratio scales the counts. */
    private readonly model: string,
    /** The window (its effective limit) that available() and percentage() measure against. */
    private readonly window: { readonly effectiveLimit: number },
    readonly calibration: UsageCalibration,
    private readonly unmatched: UnmatchedUsage,
    private readonly logger: Logger | undefined,
  ) {}

  /** An anchor that starts where this one is and goes on alone (what a compaction preview edits against). */
  copy(): UsageAnchor {
    const copy = new UsageAnchor(this.model, this.window, this.calibration, this.unmatched, this.logger);
    copy.rewrites = this.rewrites;
    copy.lastRequest = this.lastRequest;
    copy.anchor = this.anchor;
    return copy;
  }

  /** The conversation changed other than by an append: the anchor no longer holds. */
  rewritten(): void {
    this.rewrites++;
    this.anchor = undefined;
  }

  /** A request of `counted` local tokens was made: a usage reported next belongs to it. */
  requestMade(counted: number): void {
    this.lastRequest = { rewrites: this.rewrites, counted };
  }

  /**
   * Anchors on `usage` when it belongs to the request last recorded, and updates the model's
   * reported-to-counted ratio; otherwise warns and changes nothing. Returns whether it was applied.
   * A usage of no known shape throws before anything changes.
   */
  observe(usage: ReportedUsage): boolean {
    const reported = reportedInputTokens(usage);
    const warn = (why: string) => {
      (this.logger ?? consoleLogger).warn(`ctxwin: ignored a reported usage: ${why}`);
      return false;
    };
    if (reported === undefined) return warn("it reports no input tokens");
    const request = this.lastRequest;
    if (request === undefined) return warn(this.unmatched.noRequest);
    if (request.rewrites !== this.rewrites) return warn(this.unmatched.rewritten);
    this.calibration.observe(this.model, reported, request.counted);
    this.anchor = { reported, counted: request.counted };
    return true;
  }

  /** The total for `counted` local tokens: anchored on the last reported usage when there is one, scaled by the model's ratio. */
  total(counted: number): number {
    if (this.anchor) return this.anchor.reported + this.calibration.scale(this.model, Math.max(0, counted - this.anchor.counted));
    return this.calibration.scale(this.model, counted);
  }

  /** What is left of the window when the request has `counted` local tokens. */
  available(counted: number): number {
    return Math.max(0, this.window.effectiveLimit - this.total(counted));
  }

  /** The request's share of the window, as a percentage (75000 of 100000 gives 75). */
  percentage(counted: number): number {
    const limit = this.window.effectiveLimit;
    return limit === 0 ? 100 : (this.total(counted) / limit) * 100;
  }

  /** Whether the total builds on a reported usage. */
  get anchored(): boolean {
    return this.anchor !== undefined;
  }

  /** `tokens` in the model's reported units back to local counts (for budgets planned on local counts). */
  unscale(tokens: number): number {
    return this.calibration.unscale(this.model, tokens);
  }

  /** `tokens` counted locally, scaled up by what the model's responses reported. */
  scale(tokens: number): number {
    return this.calibration.scale(this.model, tokens);
  }
}
