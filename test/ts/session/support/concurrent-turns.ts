// Concurrent async turns on one session-backed manager (issue 39: with 40 of them, SUMMARIZE, a 3K
// window, 2-6 of 80 messages were missing from the log per run). Each turn waits, calls a tool,
// waits, adds the result and sometimes flushes, while compactions (a summarizer that takes its
// time) and forced trims run under it. Shared by the property test (vitest) and the chaos run.
import fc from "fast-check";
import {
  ContextLimits,
  MessageContextManager,
  TruncationMode,
  extractiveSummarizer,
  type MessageLike,
  type SessionStore,
  type SummaryModel,
} from "ctxwin";

export interface TurnPlan {
  /** Per turn: the waits (ms) before its call and before its result, its result's size in lines, whether it flushes. */
  turns: Array<{ before: number; between: number; lines: number; flush: boolean }>;
  /** How long the summarizer takes (ms). */
  summaryMs: number;
}

export const turnPlans = (maxTurns = 40): fc.Arbitrary<TurnPlan> =>
  fc.record({
    turns: fc.array(
      fc.record({
        before: fc.integer({ min: 0, max: 3 }),
        between: fc.integer({ min: 0, max: 3 }),
        lines: fc.integer({ min: 1, max: 120 }),
        flush: fc.boolean(),
      }),
      { minLength: 1, maxLength: maxTurns },
    ),
    summaryMs: fc.integer({ min: 0, max: 4 }),
  });

const sleep = (ms: number) => (ms === 0 ? Promise.resolve() : new Promise((r) => setTimeout(r, ms)));

/** An offline summarizer that takes `ms` to answer, as a model does. */
function slowSummarizer(ms: number): SummaryModel {
  const inner = extractiveSummarizer();
  return async (prompt: string) => {
    await sleep(ms);
    return inner.summarize(prompt);
  };
}

export interface TurnsOutcome {
  /** Messages added, in the order addMessage took them. */
  added: MessageLike[];
  /** Message entries of the log (summaries aside), in log order. */
  logged: MessageLike[];
  missing: number;
  duplicated: number;
  /** Whether the messages the log holds are in the order they were added. */
  inOrder: boolean;
  /** Whether a manager opened afterwards sees what this one sees. */
  reopenedEqual: boolean;
}

/** Runs `plan` on a fresh session of `store` and compares its log with what was added. */
export async function runConcurrentTurns(store: SessionStore, id: string, plan: TurnPlan): Promise<TurnsOutcome> {
  const options = {
    model: "gpt-4o",
    mode: TruncationMode.SUMMARIZE,
    compaction: { summarizer: slowSummarizer(plan.summaryMs) },
    limits: new ContextLimits({ model: "gpt-4o", maxTokens: 3000, maxOutputTokens: 0, reservedTokens: 0 }),
    logger: { warn: () => {} },
    session: { store, id },
  };
  const cm = await MessageContextManager.open(options);
  const added: MessageLike[] = [];
  const add = (message: MessageLike) => {
    cm.addMessage(message);
    added.push(message);
  };
  await Promise.all(
    plan.turns.map(async (turn, i) => {
      await sleep(turn.before);
      add({
        role: "assistant",
        content: null,
        tool_calls: [{ id: `${id}-c${i}`, type: "function", function: { name: "grep", arguments: `{"turn":${i}}` } }],
      });
      await sleep(turn.between);
      add({ role: "tool", tool_call_id: `${id}-c${i}`, content: `turn ${i}: ${"match line\n".repeat(turn.lines)}` });
      if (turn.flush) await cm.flush();
    }),
  );
  await cm.flush();
  const logged: MessageLike[] = [];
  for await (const record of store.scan(id)) {
    const entry = record.entry as { type: string; summary?: boolean; message?: MessageLike };
    if (entry.type === "message" && entry.summary !== true) logged.push(entry.message as MessageLike);
  }
  const key = (m: MessageLike) => JSON.stringify(m);
  const counts = new Map<string, number>();
  for (const m of logged) counts.set(key(m), (counts.get(key(m)) ?? 0) + 1);
  const missing = added.filter((m) => !counts.has(key(m))).length;
  const duplicated = [...counts.values()].filter((n) => n > 1).length;
  const inOrder = JSON.stringify(logged.map(key)) === JSON.stringify(added.map(key));
  const reopened = await MessageContextManager.open(options);
  const reopenedEqual = JSON.stringify(reopened.getMessages()) === JSON.stringify(cm.getMessages());
  return { added, logged, missing, duplicated, inOrder, reopenedEqual };
}
