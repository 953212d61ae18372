// The warnings at 80% and 90% of the effective limit: each given once when usage crosses it, and
// given again only after usage fell below it (a trim, a clear, an import).
export interface ContextWarning {
  level: 80 | 90;
  message: string;
  usagePercentage: number;
}

/** The warnings a chat shows, word for word as its users know them. */
export const WARNING_80 = "Context at 80% capacity. Consider /clear or /save.";
export const WARNING_90 = "Context at 90% capacity. Auto-trimming soon.";

export class UsageWarnings {
  private warned80 = false;
  private warned90 = false;

  /**
   * The warnings `usage` (a percentage) crosses that were not given yet, in order, each marked
   * given as it is handed out.
   */
  *crossed(usage: number): Generator<ContextWarning> {
    if (usage >= 80 && !this.warned80) {
      this.warned80 = true;
      yield { level: 80, message: WARNING_80, usagePercentage: usage };
    }
    if (usage >= 90 && !this.warned90) {
      this.warned90 = true;
      yield { level: 90, message: WARNING_90, usagePercentage: usage };
    }
  }

  /** Usage fell to `usage`: the warnings above it may be given again. */
  rearm(usage: number): void {
    if (usage < 80) this.warned80 = false;
    if (usage < 90) this.warned90 = false;
  }
}
