// The summarizer's circuit breaker: after `maxFailures` failed summaries in a row it opens, and
// compaction stops calling the model (the other levels still run) until `resetMs` have passed,
// when one trial call may close it again. Compaction must never become the problem it solves: a
// model that is down would otherwise be called, and waited for, at every compaction.
import { describe, requireCount, typeError } from "../runtime/errors.js";

export interface BreakerState {
  state: "closed" | "open" | "half-open";
  /** Failed summaries in a row. */
  consecutiveFailures: number;
  /** When it opened last (ms since the epoch), if it is not closed. */
  openedAt?: number;
  lastError?: string;
}

export interface BreakerEvent extends BreakerState {
  /** "opened" after the last allowed failure, "trial" when a trial call is let through, "closed" after a success. */
  transition: "opened" | "trial" | "closed";
}

export class CircuitBreaker {
  readonly maxFailures: number;
  readonly resetMs: number;
  private readonly onBreaker: ((event: BreakerEvent) => void) | undefined;
  private current: BreakerState = { state: "closed", consecutiveFailures: 0 };

  constructor(options: { maxSummaryFailures?: number; breakerResetMs?: number; onBreaker?: (event: BreakerEvent) => void }) {
    this.maxFailures = requireCount(options.maxSummaryFailures ?? 3, "options.maxSummaryFailures", 1);
    this.resetMs = requireCount(options.breakerResetMs ?? 300_000, "options.breakerResetMs");
    if (options.onBreaker !== undefined && typeof options.onBreaker !== "function") {
      throw typeError(`options.onBreaker must be a function, got ${describe(options.onBreaker)}`);
    }
    this.onBreaker = options.onBreaker;
  }

  /** Takes `other`'s state, without telling anyone (a forked compaction starts where `other` is). */
  copyFrom(other: CircuitBreaker): void {
    this.current = { ...other.current };
  }

  /** The breaker as it is now. */
  get state(): BreakerState {
    return { ...this.current };
  }

  /**
   * Whether the model may be called now: closed, open long enough for a trial, or half-open (a
   * trial was let through but never reached the model, e.g. too few messages).
   */
  allows(now = Date.now()): boolean {
    const b = this.current;
    return b.state !== "open" || now - (b.openedAt ?? 0) >= this.resetMs;
  }

  /** A call is about to be made: an open breaker lets it through as its one trial. */
  calling(): void {
    if (this.current.state === "open") this.transition("trial", { ...this.current, state: "half-open" });
  }

  failed(error: Error): void {
    const b = this.current;
    const failures = b.consecutiveFailures + 1;
    if (b.state === "half-open" || (b.state === "closed" && failures >= this.maxFailures)) {
      this.transition("opened", { state: "open", consecutiveFailures: failures, openedAt: Date.now(), lastError: error.message });
    } else {
      this.current = { ...b, consecutiveFailures: failures, lastError: error.message };
    }
  }

  succeeded(): void {
    const wasOpen = this.current.state !== "closed";
    this.current = { state: "closed", consecutiveFailures: 0 };
    if (wasOpen) this.onBreaker?.({ ...this.current, transition: "closed" });
  }

  private transition(transition: BreakerEvent["transition"], state: BreakerState): void {
    this.current = state;
    this.onBreaker?.({ ...state, transition });
  }
}
