// What the framework adapters' tests share: an 8,000-token window, tool outputs of 1,000 to 3,000
// tokens that read like a coding agent's (file contents, test logs with an error in them), and the
// task the mock models work through.
import { expect } from "vitest";
import { getCounter } from "ctxwin";

export const MODEL = "gpt-4o";
export const WINDOW = 8000;
export const RESERVED_OUTPUT = 1000;
export const STEPS = 60;
export const SYSTEM =
  "You are a careful coding agent. Read the files you need, run the tests, and fix the bug. Answer with a short report.";
export const TASK = "Invoices exported to CSV show the due date one day early for customers west of UTC. Find and fix the bug.";
export const FINAL = "Fixed: parseIsoDate now takes the customer's time zone; all tests pass.";
/** ctxwin's options for the window the tests run in. */
export const LIMITS = { maxTokens: WINDOW, maxOutputTokens: RESERVED_OUTPUT };

const counter = getCounter(MODEL);
const cache = new Map<number, string>();

/** Step `step`'s tool output: between 1,000 and 3,000 tokens, deterministic, an error line in every fifth. */
export function toolOutput(step: number): string {
  const cached = cache.get(step);
  if (cached !== undefined) return cached;
  const target = 1000 + ((step * 7919) % 2001);
  const lines: string[] = [`$ read_file src/module${step}.ts`];
  let tokens = counter.count(lines[0] as string);
  for (let i = 1; tokens < target; i++) {
    const line =
      step % 5 === 0 && i === 12
        ? `Error: ENOENT: no such file or directory, open 'src/util/date${step}.ts'`
        : `${String(i).padStart(4)}  export function helper${step}_${i}(value: number): number { return value * ${i} + ${step}; }`;
    const next = counter.count(`\n${line}`);
    if (tokens + next > target) break;
    lines.push(line);
    tokens += next;
  }
  const text = lines.join("\n");
  cache.set(step, text);
  return text;
}

export function toolOutputTokens(step: number): number {
  return counter.count(toolOutput(step));
}

/**
 * Checks the tool calls a model request holds against the steps so far: at model call `call`
 * (1-based), the calls are `call_<step>` of earlier steps, in order, each at most once, and the
 * previous step's call is among them (its result is what the model reads next). Older steps may
 * have been cleared, summarized or dropped.
 */
export function expectStepsSoFar(callIds: readonly string[], call: number): void {
  const steps = callIds.map((id) => {
    const match = /^call_(\d+)$/.exec(id);
    expect(match, `unexpected tool call id ${id}`).not.toBeNull();
    return Number(match?.[1]);
  });
  steps.forEach((step, i) => {
    expect(step).toBeLessThan(call);
    if (i > 0) expect(step).toBeGreaterThan(steps[i - 1] as number);
  });
  if (call > 1) expect(steps, `model call ${call} lacks the tool call of step ${call - 1}`).toContain(call - 1);
}
