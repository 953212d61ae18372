import { threadEvents } from "./thread-validation.js";
import type { AgentThread, SummaryEvent } from "./types.js";

/**
 * The summaries of a thread as a block for the system prompt, byte-identical to the reference
 * implementation's: "" without summaries, else a "## Previous Iteration Summaries" heading and one
 * "### Iteration(s) 1, 2" section per summary event, in thread order.
 *
 * This stays in TypeScript on purpose: it formats caller objects with JavaScript's own rules
 * (`Array.prototype.join` of whatever `summarizedIterations` holds), which the core could only
 * imitate.
 */
export function buildContextInjection(thread: AgentThread): string {
  const events = threadEvents(thread);
  let out = "";
  for (const event of events) {
    if (event === null || typeof event !== "object" || event.type !== "summary") continue;
    const summary = event as SummaryEvent;
    const iterations = Array.isArray(summary.summarizedIterations) ? summary.summarizedIterations : [summary.iteration];
    out += `### Iteration(s) ${iterations.join(", ")}\n${summary.summary}\n\n`;
  }
  return out === "" ? "" : `## Previous Iteration Summaries\n\n${out}`;
}
