// Errors survive compaction: the error lines of a tool result that compaction clears, cuts or
// summarizes reach the model in every later request (in the cleared result's placeholder, or in the
// summary, which receives the session's open problems) until a later result resolves them.
// Checked on every request of a 60-step tool loop, not on the last.
import { describe, expect, it } from "vitest";
import { ContextLimits, MessageContextManager, TiktokenCounter, TruncationMode, extractiveSummarizer, type MessageLike } from "ctxwin";

const counter = new TiktokenCounter({ model: "gpt-4o" });
const quiet = { warn: () => {} };

const DUPLICATE = "Error: duplicate charge detected for ch_17_5";
const ENOSPC = "Error: ENOSPC: no space left on device, write 'dist/bundle.js'";

/** Step n of a billing agent's loop: the call it makes and the tool's output. */
function step(n: number): { tool: string; args: Record<string, unknown>; output: string } {
  const filler = Array.from(
    { length: 40 },
    (_, k) => `src/billing/ledger.ts:${k + n}: const charge = await ledger.find(id_${n}_${k});`,
  ).join("\n");
  if (n === 17) {
    return {
      tool: "run_tests",
      args: { filter: "billing" },
      output: `> vitest run test/billing\n\n FAIL test/billing/charge.test.ts > charges > rejects a duplicate charge\n${DUPLICATE}\n    at Ledger.charge (src/billing/ledger.ts:88:11)\n\nTests  1 failed | 48 passed (49)\n${filler}`,
    };
  }
  if (n === 33)
    return { tool: "run_command", args: { command: "npm run build" }, output: `> tsc && esbuild\n${filler}\n${ENOSPC}\nexit code 1` };
  if (n === 36)
    return { tool: "run_command", args: { command: "npm run build" }, output: "> tsc && esbuild\nbuild ok in 4.4s\nexit code 0" };
  return { tool: "read_file", args: { path: `src/billing/file-${n}.ts` }, output: filler };
}

describe("errors survive compaction", () => {
  it("keeps a failure in front of the model in every request until it is resolved (MessageContextManager, extractive summarizer, 60 steps)", async () => {
    const context = new MessageContextManager<MessageLike>({
      model: "gpt-4o",
      counter,
      mode: TruncationMode.SUMMARIZE,
      limits: new ContextLimits({ model: "gpt-4o", maxTokens: 6000, maxOutputTokens: 0, reservedTokens: 0 }),
      logger: quiet,
      compaction: { summarizer: extractiveSummarizer(), preserveLast: 6 },
    });
    context.setSystemPrompt("You are a billing agent.");
    context.addMessage({ role: "user", content: "Find why customers are charged twice and fix it." });
    let summaries = 0;
    context.on("compacted", (report) => {
      if (report.summary !== undefined) summaries++;
    });
    for (let n = 1; n <= 60; n++) {
      const { tool, args, output } = step(n);
      const id = `call_${n}`;
      context.addMessage({
        role: "assistant",
        content: null,
        tool_calls: [{ id, type: "function", function: { name: tool, arguments: JSON.stringify(args) } }],
      } as MessageLike);
      context.addMessage({ role: "tool", tool_call_id: id, content: output } as MessageLike);
      await context.compactIfNeeded();
      const request = JSON.stringify(context.getContextForRequest());
      if (n >= 17) expect(request, `request after step ${n}`).toContain("duplicate charge detected for ch_17_5");
      if (n >= 33 && n < 36) expect(request, `request after step ${n}`).toContain("ENOSPC");
    }
    // The loop outgrew the window many times over: old results were cleared and old turns summarized.
    expect(summaries).toBeGreaterThan(0);
    const last = JSON.stringify(context.getContextForRequest());
    expect(last).not.toContain(filler17());
  });
});

/** A line only step 17's full output has: gone once that result was cleared or summarized. */
function filler17(): string {
  return "src/billing/ledger.ts:17: const charge = await ledger.find(id_17_0);";
}
