// A real session for the report's tests: a scripted coding agent of STEPS steps kept by
// MessageContextManager in an 8,000-token window, its log in a session store. Each step is one
// request (getContextForRequest, where trims and compactions happen), then the model's tool call
// and the tool's result; some results fail a build or a test, later ones pass it (open problems
// that resolve). The manager's own count of each request is kept for the tests to compare with.
import { MessageContextManager, TruncationMode } from "ctxwin";

export const MODEL = "gpt-4o";
export const LIMITS = { maxTokens: 8000, maxOutputTokens: 1000 };
export const SYSTEM = "You are a careful coding agent. Read the files you need, run the tests, and fix the bug.";
export const TASK = "Invoices exported to CSV show the due date one day early for customers west of UTC. Find and fix the bug.";

/** A file's text of about `lines` lines, deterministic per step. */
function fileText(step, lines) {
  const out = [`// src/billing/module${step}.ts`];
  for (let i = 1; i <= lines; i++) out.push(`export function helper${step}_${i}(value: number): number { return value * ${i} + ${step}; }`);
  return out.join("\n");
}

/** What step `step` calls and what the tool answers (`hostile`: step 3's command and output, markup for the escaping checks). */
function stepOf(step, hostile) {
  if (step === 3 && hostile) return { name: "run_command", args: { command: hostile.command }, output: hostile.output };
  const build = (ok) =>
    ok
      ? "> tsc && esbuild\nbuilt dist/bundle.js in 412 ms\nexit code 0"
      : "> tsc && esbuild\nError: ENOSPC: no space left on device, write 'dist/bundle.js'\nexit code 1";
  if (step % 10 === 5) return { name: "run_command", args: { command: "npm run build" }, output: build(step >= 25) };
  if (step % 10 === 8) {
    const output =
      step >= 48
        ? "> vitest run\n Test Files  12 passed (12)\n      Tests  140 passed (140)\nexit code 0"
        : "> vitest run\n FAIL  test/csv.test.ts > due date > keeps the customer's day\nAssertionError: expected '2026-03-01' to be '2026-03-02'\n Test Files  1 failed | 11 passed (12)\n      Tests  1 failed | 139 passed (140)\nexit code 1";
    return { name: "run_command", args: { command: "npm test" }, output };
  }
  return { name: "read_file", args: { path: `src/billing/module${step}.ts` }, output: fileText(step, 14 + ((step * 37) % 40)) };
}

/**
 * Plays `steps` steps into a manager whose log is in `store` under `id`; returns the manager's
 * total at each request (what it counted for the context it gave). `options.compactEvery`: the
 * loop compacts before the request on steps that are not a multiple of it (default 3; 0: never,
 * the request's own trims only, the fastest); `options.hostile`: see stepOf.
 */
export async function playSession(store, id, steps = 60, options = {}) {
  const manager = await MessageContextManager.open({
    model: MODEL,
    mode: TruncationMode.SUMMARIZE,
    limits: LIMITS,
    compaction: { maxToolResultTokens: 600, keepToolResults: 3, ...options.compaction },
    session: { store, id },
  });
  manager.setSystemPrompt(SYSTEM);
  manager.addMessage({ role: "user", content: TASK });
  const totals = [];
  const every = options.compactEvery ?? 3;
  for (let step = 1; step <= steps; step++) {
    // An agent loop that compacts between steps (levels 1-3, the summary included) on most steps,
    // and leaves the rest to the request's own trim.
    if (every > 0 && step % every !== 0) await manager.compactIfNeeded();
    manager.getContextForRequest();
    totals.push(manager.tokenUsage);
    const call = stepOf(step, options.hostile);
    const callId = `call_${step}`;
    manager.addMessage({
      role: "assistant",
      content: step % 7 === 0 ? `Step ${step}: looking at the next module.` : null,
      tool_calls: [{ id: callId, type: "function", function: { name: call.name, arguments: JSON.stringify(call.args) } }],
    });
    manager.addMessage({ role: "tool", tool_call_id: callId, content: call.output });
    if (step % 20 === 0) manager.addMessage({ role: "user", content: `Keep going; step ${step} done. <b>not bold</b>` });
    if (step % 10 === 0) await manager.flush();
  }
  manager.getContextForRequest();
  totals.push(manager.tokenUsage);
  manager.addMessage({ role: "assistant", content: "Fixed: parseIsoDate now takes the customer's time zone; all tests pass." });
  await manager.flush();
  return totals;
}
