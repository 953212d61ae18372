// SPEC-08 figures: estimateTokens through the core vs the same arithmetic in JavaScript, and
// estimateThreadTokens on a 10,000-event thread vs the reference (which re-serializes every event
// on every call).
import { ContextManager, estimateTokens, type AgentEvent, type AgentThread } from "ctxwin";
import { consume, measure, printTable } from "./harness.js";

function thread(events: number): AgentThread {
  const list: AgentEvent[] = [];
  for (let i = 0; list.length < events; i++) {
    const iteration = Math.floor(i / 2) + 1;
    list.push(
      i % 2 === 0
        ? {
            type: "tool_call",
            timestamp: 1_700_000_000_000 + i,
            iteration,
            toolName: "read_file",
            toolCallId: `call_${i}`,
            args: { path: `src/module${i}.ts` },
          }
        : {
            type: "tool_result",
            timestamp: 1_700_000_000_000 + i,
            iteration,
            toolCallId: `call_${i - 1}`,
            result: `${"const value = compute(input);\n".repeat(1 + (i % 40))}`,
          },
    );
  }
  return { id: "bench", events: list, metadata: {}, createdAt: 0, updatedAt: 0 };
}

const referenceThreadTokens = (t: AgentThread) => t.events.reduce((sum, e) => sum + Math.ceil(JSON.stringify(e).length / 3.5), 0);

export function benchSpec08(): void {
  const texts = [0, 5, 200, 5_000, 1_000_000].map((n) => "x".repeat(n));
  const perText = texts.length;
  printTable(
    "estimateTokens, one call (strings of 0 to 1,000,000 chars)",
    [
      measure(
        {
          name: "Math.ceil(s.length / 3.5) in JS",
          run: (n) => {
            for (let i = 0; i < n; i++) consume(Math.ceil((texts[i % perText] as string).length / 3.5));
          },
        },
        2_000_000,
      ),
      measure(
        {
          name: "ctxwin estimateTokens (core)",
          run: (n) => {
            for (let i = 0; i < n; i++) consume(estimateTokens(texts[i % perText] as string));
          },
        },
        2_000_000,
      ),
    ],
    "Math.ceil(s.length / 3.5) in JS",
  );

  const base = thread(10_000);
  const grown = thread(10_010);
  const extra = grown.events.slice(10_000);
  if (new ContextManager().estimateThreadTokens(grown) !== referenceThreadTokens(grown)) {
    throw new Error("estimateThreadTokens disagrees with the reference");
  }
  const megabytes = grown.events.reduce((n, e) => n + JSON.stringify(e).length, 0) / 1e6;
  let manager = new ContextManager();
  let growing: AgentThread = base;
  printTable(
    `estimateThreadTokens, 10,000 events (${megabytes.toFixed(1)} MB of JSON)`,
    [
      measure(
        {
          name: "reference: sum of ceil(JSON.stringify(e).length / 3.5)",
          run: (n) => {
            for (let i = 0; i < n; i++) consume(referenceThreadTokens(grown));
          },
        },
        5,
      ),
      measure(
        {
          name: "ctxwin, first call (cold cache)",
          run: (n) => {
            for (let i = 0; i < n; i++) consume(new ContextManager().estimateThreadTokens(grown));
          },
        },
        5,
      ),
      measure(
        {
          name: "ctxwin, after adding 10 events",
          setup: () => {
            manager = new ContextManager();
            growing = { ...base, events: base.events.slice() };
            manager.estimateThreadTokens(growing);
          },
          run: (n) => {
            for (let i = 0; i < n; i++) {
              growing.events.length = 10_000;
              for (const e of extra) growing.events.push({ ...e }); // 10 events the cache has never seen
              consume(manager.estimateThreadTokens(growing));
            }
          },
        },
        20,
      ),
      measure(
        {
          name: "ctxwin, unchanged thread",
          setup: () => {
            manager = new ContextManager();
            manager.estimateThreadTokens(grown);
          },
          run: (n) => {
            for (let i = 0; i < n; i++) consume(manager.estimateThreadTokens(grown));
          },
        },
        20,
      ),
    ],
    "reference: sum of ceil(JSON.stringify(e).length / 3.5)",
  );
}
