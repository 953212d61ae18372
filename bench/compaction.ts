// Compaction: compacting a 5 MB tool output (text and JSON), and a progressive compaction of a
// 10,000-message history (levels 1, 2 and 4; level 3 with the extractive summarizer).
import { ContextLimits, MessageContextManager, TiktokenCounter, ToolResultCompactor, extractiveSummarizer, type MessageLike } from "ctxwin";
import { formatTime } from "./harness.js";

type Msg = MessageLike & { tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }> };

function timeOnce<T>(run: () => T): { ns: number; value: T } {
  const start = process.hrtime.bigint();
  const value = run();
  return { ns: Number(process.hrtime.bigint() - start), value };
}

async function timeOnceAsync<T>(run: () => Promise<T>): Promise<{ ns: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await run();
  return { ns: Number(process.hrtime.bigint() - start), value };
}

export async function benchCompaction(): Promise<void> {
  const counter = new TiktokenCounter({ model: "gpt-4o" });
  const compactor = new ToolResultCompactor({ maxResultTokens: 1000 });
  const lines: string[] = [];
  for (let i = 0, length = 0; length < 5_000_000 && i < 200_000; i++) {
    const line =
      i % 5000 === 4999
        ? `Error: request ${i} failed with status 503`
        : `${new Date(1_700_000_000_000 + i * 1000).toISOString()} INFO worker-${i % 8} processed job ${i} in ${i % 97}ms`;
    lines.push(line);
    length += line.length + 1; // the joined text's length, without joining every time
  }
  const text = lines.join("\n");
  const json = JSON.stringify({
    jobs: Array.from({ length: 40_000 }, (_, i) => ({
      id: i,
      status: i % 50 ? "done" : "failed",
      worker: `worker-${i % 8}`,
      note: "x".repeat(80),
    })),
  });
  console.log("\n### Compaction\n");
  console.log("| operation | time | result |");
  console.log("|---|---|---|");
  for (const [name, input] of [
    ["text log", text],
    ["JSON", json],
  ] as const) {
    compactor.compact(input.slice(0, 10000), counter); // warm-up
    const { ns, value } = timeOnce(() => compactor.compact(input, counter));
    console.log(
      `| ToolResultCompactor, ${(input.length / 1e6).toFixed(1)} MB ${name} to 1,000 tokens | ${formatTime(ns)} | ${value.originalTokens.toLocaleString("en-US")} -> ${value.tokens} tokens${value.json ? ", valid JSON" : ""} |`,
    );
  }

  // A 10,000-message history with tool units.
  const history: Msg[] = [];
  for (let i = 0; history.length < 10_000; i++) {
    history.push({ role: "user", content: `Look at src/module${i}.ts` });
    history.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id: `c${i}`, type: "function", function: { name: "read_file", arguments: `{"path":"src/module${i}.ts"}` } }],
    });
    history.push({ role: "tool", tool_call_id: `c${i}`, content: `export const v${i} = compute(${i});\n`.repeat(10 + (i % 200)) } as Msg);
    history.push({ role: "assistant", content: `Module ${i} exports v${i}.` });
  }
  for (const [label, llm] of [
    ["no llm", undefined],
    ["llm: extractive summarizer", extractiveSummarizer()],
  ] as const) {
    const cm = new MessageContextManager<Msg>({
      model: "gpt-4o",
      counter,
      limits: new ContextLimits({ model: "gpt-4o", maxTokens: 400_000, maxOutputTokens: 0, reservedTokens: 0 }),
      logger: { warn: () => {} },
      compaction: { autoTruncate: false, summarizer: llm, maxToolResultTokens: 500 },
    });
    cm.load(history);
    const before = cm.tokenUsage;
    const { ns, value } = await timeOnceAsync(() => cm.compactIfNeeded({ threshold: 0.5 }));
    const applied = value.levels
      .filter((l) => l.applied && l.messagesChanged > 0)
      .map((l) => l.level)
      .join(", ");
    console.log(
      `| compactIfNeeded, 10,000 messages (${label}) | ${formatTime(ns)} | ${before.toLocaleString("en-US")} -> ${cm.tokenUsage.toLocaleString("en-US")} tokens, levels that changed messages: ${applied} |`,
    );
  }
}
