// Agent-shaped sessions replayed request by request through a MessageContextManager, in every
// mode: tool units of one or two calls, results from a line to 3,200 tokens, now and then a user
// message, or an agent's note answered by its framework's correction, a pinned task of up to 4,000
// tokens, windows of 2,000 to 32,000. At every request (counted again here, independently of the
// manager's running total):
//   - it fits the window;
//   - the task is in it, as the caller's own message;
//   - no tool unit is split: every call with all its results, every result with its call;
//   - the newest exchange (the call made last and its results, with what followed them) is in it
//     whenever dropping the oldest turns (system prompt, task and last user message pinned) keeps
//     it; whole (the caller's own messages) in the modes without a summary, where nothing else is
//     pinned.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextLimits, MessageContextManager, TiktokenCounter, TruncationMode, extractiveSummarizer, type MessageLike } from "ctxwin";

const counter = new TiktokenCounter({ model: "gpt-4o" });
const quiet = { warn: () => {} };

type Msg = MessageLike & { role: string; content: unknown; tool_call_id?: string; tool_calls?: Array<{ id: string }> };
type Step = { thought: number; results: number[]; failing: boolean; user: boolean; correction: boolean };

const LINE = "  41  src/importer/csv_reader.py: value = parse_row(rows[i], dialect)";
const LINE_TOKENS = counter.count(`${LINE}\n`);

/** Text of about `tokens` tokens (whole lines of a tool's output). */
function text(tokens: number, head: string): string {
  return [head, ...Array.from({ length: Math.max(0, Math.ceil(tokens / LINE_TOKENS) - 1) }, () => LINE)].join("\n");
}

const step: fc.Arbitrary<Step> = fc.record({
  thought: fc.integer({ min: 5, max: 150 }),
  // Mostly short results, now and then a large one (a test log, a file).
  results: fc.array(
    fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 5, max: 300 }) }, { weight: 1, arbitrary: fc.integer({ min: 300, max: 3200 }) }),
    { minLength: 1, maxLength: 2 },
  ),
  failing: fc.boolean(),
  // Now and then the user says something between steps.
  user: fc.integer({ min: 0, max: 6 }).map((k) => k === 0),
  // Now and then the agent writes a note without a command, and its framework answers with a
  // correction (a user message), as mini-swe-agent does: the newest result is then before them.
  correction: fc.integer({ min: 0, max: 5 }).map((k) => k === 0),
});

const session = fc.record({
  mode: fc.constantFrom(...Object.values(TruncationMode)),
  window: fc.integer({ min: 2000, max: 32000 }),
  taskShare: fc.double({ min: 0, max: 1, noNaN: true }),
  system: fc.integer({ min: 0, max: 300 }),
  steps: fc.array(step, { minLength: 1, maxLength: 36 }),
});

/** The messages a step adds: the assistant's call(s), then one result per call (then a note and a correction). */
function stepMessages(s: Step, n: number): { user?: Msg; call: Msg; results: Msg[]; after: Msg[] } {
  const ids = s.results.map((_, k) => `call_${n}_${k}`);
  const call = {
    role: "assistant",
    content: text(s.thought, `Step ${n}: running the next check.`),
    tool_calls: ids.map((id) => ({
      id,
      type: "function",
      function: { name: "bash", arguments: JSON.stringify({ command: `pytest -k case${n}` }) },
    })),
  } as Msg;
  const results = s.results.map(
    (tokens, k) =>
      ({
        role: "tool",
        tool_call_id: ids[k],
        content: text(tokens, s.failing ? `FAILED tests/test_csv.py::test_case${n} - AssertionError` : `${n} passed`),
      }) as Msg,
  );
  const after = s.correction
    ? [
        { role: "assistant", content: `The output of case ${n} looks fine; moving on.` } as Msg,
        { role: "user", content: "Please always provide EXACTLY ONE action in triple backticks." } as Msg,
      ]
    : [];
  return { ...(s.user ? { user: { role: "user", content: `Also check case ${n}.` } as Msg } : {}), call, results, after };
}

/**
 * Whether dropping the oldest turns keeps the newest exchange: the system prompt, the task and the
 * last user message pinned, whole units dropped oldest first until the request fits the window.
 * Written here on its own, without ctxwin's planner: it keeps the newest exchange exactly when the
 * pinned messages and it fit.
 */
function dropOldestKeeps(system: Msg[], history: readonly Msg[], newest: readonly Msg[], limit: number): boolean {
  const lastUser = [...history].reverse().find((m) => m.role === "user");
  const pinned = new Set<Msg>([history[0] as Msg, ...(lastUser ? [lastUser] : []), ...newest]);
  return counter.countMessages([...system, ...pinned]) <= limit;
}

describe("agent-shaped histories, request by request", () => {
  it("every request fits, holds the task and whole units, and the newest exchange whenever dropping the oldest keeps it", async () => {
    await fc.assert(
      fc.asyncProperty(session, async ({ mode, window, taskShare, system, steps }) => {
        const limits = new ContextLimits({ model: "gpt-4o", maxTokens: window, maxOutputTokens: 0, reservedTokens: 0 });
        const limit = limits.effectiveLimit;
        const context = new MessageContextManager<Msg>({
          model: "gpt-4o",
          counter,
          mode,
          compaction: { summarizer: mode === TruncationMode.SUMMARIZE ? extractiveSummarizer() : undefined },
          limits,
          logger: quiet,
        });
        const prompt = text(Math.min(system, Math.floor(window * 0.05)), "You are a careful coding agent.");
        context.setSystemPrompt(prompt);
        const systemMessages = [{ role: "system", content: prompt } as Msg];
        const task = {
          role: "user",
          content: text(Math.floor(taskShare * Math.min(4000, window * 0.4)), "Task: make the CSV importer accept quoted newlines."),
        } as Msg;
        const history: Msg[] = [task];
        context.addMessage(task);
        let newest: Msg[] = [task];
        for (let n = 0; n <= steps.length; n++) {
          // A model request: the compaction the loop joins, then the request itself.
          if (mode === TruncationMode.SUMMARIZE) await context.compactIfNeeded();
          const request = context.getContextForRequest() as Msg[];
          expect(counter.countMessages(request), `request ${n} over the window of ${limit}`).toBeLessThanOrEqual(limit);
          expect(request).toContain(task);
          const calls = new Set(request.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)));
          const results = new Set(request.flatMap((m) => (m.role === "tool" && m.tool_call_id ? [m.tool_call_id] : [])));
          expect([...calls].sort(), `request ${n}: a split unit`).toEqual([...results].sort());
          // The newest call and its results, and what came after them (a note, a correction): dropping
          // the oldest turns keeps them together or not at all. With messages after them the planner
          // also keeps room for the omission marker.
          const slack = history[history.length - 1] === newest[newest.length - 1] ? 0 : 40;
          if (dropOldestKeeps(systemMessages, history, history.slice(history.indexOf(newest[0] as Msg)), limit - slack)) {
            for (const m of newest) {
              const id = m.role === "tool" ? m.tool_call_id : undefined;
              const found = id === undefined ? request.includes(m) : request.some((r) => r.tool_call_id === id);
              expect(found, `request ${n} lost the newest exchange (${mode}, window ${window})`).toBe(true);
            }
            // Without a summary nothing but the pinned messages competes with it (a marker aside).
            if (
              mode !== TruncationMode.SUMMARIZE &&
              dropOldestKeeps(systemMessages, history, history.slice(history.indexOf(newest[0] as Msg)), limit - 40)
            ) {
              for (const m of newest) expect(request, `request ${n}: the newest exchange was cut (${mode})`).toContain(m);
            }
          }
          const s = steps[n];
          if (s === undefined) break;
          const added = stepMessages(s, n);
          if (added.user) {
            context.addMessage(added.user);
            history.push(added.user);
          }
          for (const m of [added.call, ...added.results, ...added.after]) {
            context.addMessage(m);
            history.push(m);
          }
          newest = [added.call, ...added.results];
        }
      }),
      { numRuns: 120 },
    );
  }, 240_000);
});
