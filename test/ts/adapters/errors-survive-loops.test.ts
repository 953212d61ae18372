// Errors survive the framework loops: an error a tool reported at an early step reaches the model
// in EVERY later request of a 60-step AI SDK (v6) and LangChain loop, whatever compacted its
// result away (cleared, trimmed with its turn, summarized), until a later result of the same check
// shows it resolved. Each request is checked as the model receives it, not only the last.
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool as langchainTool } from "@langchain/core/tools";
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { extractiveSummarizer, type SummaryModel } from "ctxwin";
import { contextMiddleware as aiSdkMiddleware } from "ctxwin/ai-sdk";
import { contextMiddleware as langchainMiddleware } from "ctxwin/langchain";
import { LIMITS, MODEL, RESERVED_OUTPUT, SYSTEM, TASK } from "../support/tool-loop.js";

const STEPS = 60;
const ENOSPC = "Error: ENOSPC: no space left on device, write 'dist/bundle.js'";
const DUPLICATE = "Error: duplicate charge detected for ch_17_5";
const quiet = { warn: () => {} };

/** The command the agent runs at `step`: a build at 3 (fails) and 40 (passes), the billing tests at 5 (fail) and 45 (pass), else a file read. */
function command(step: number): string {
  if (step === 3 || step === 40) return "npm run build";
  if (step === 5 || step === 45) return "npm test -- billing";
  return `cat src/billing/file${step}.ts`;
}

/** Its output: 1,000 to 2,000 tokens of source around the failures, so that old results must go. */
function output(step: number): string {
  const source = Array.from(
    { length: 60 + ((step * 37) % 60) },
    (_, k) => `  ${String(k).padStart(3)}  const charge_${step}_${k} = await ledger.find(customer_${k}, { step: ${step} });`,
  ).join("\n");
  if (step === 3) return `> tsc && esbuild src/index.ts --bundle\n${source}\n${ENOSPC}\nexit code 1`;
  if (step === 40) return "> tsc && esbuild src/index.ts --bundle\nbuild ok in 4.4s\nexit code 0";
  if (step === 5)
    return `> vitest run test/billing\n FAIL test/billing/charge.test.ts > charges > rejects a duplicate charge\n${DUPLICATE}\n    at Ledger.charge (src/billing/ledger.ts:88:11)\n${source}\nTests  1 failed | 48 passed (49)\nexit code 1`;
  if (step === 45)
    return "> vitest run test/billing\n ✓ test/billing/charge.test.ts > charges > rejects a duplicate charge\nTests  49 passed (49)\nexit code 0";
  return `$ cat src/billing/file${step}.ts\n${source}`;
}

/** What request `call` (1-based: call n comes after the results of steps 1 to n-1) must show. */
function expectProblemsShown(request: string, call: number): void {
  if (call > 3 && call <= 40) expect(request, `request ${call}: the build's ENOSPC`).toContain("ENOSPC: no space left on device");
  if (call > 5 && call <= 45)
    expect(request, `request ${call}: the failing billing test`).toContain("duplicate charge detected for ch_17_5");
}

const summarizers: Array<[string, SummaryModel | undefined]> = [
  ["without a summarizer (results cleared, then old turns trimmed)", undefined],
  ["with extractiveSummarizer() (old turns summarized)", extractiveSummarizer()],
];

describe.each(summarizers)("an early error stays in front of the model until resolved, %s", (_name, summarizer) => {
  it("AI SDK v6 generateText, 60 steps", async () => {
    let call = 0;
    let compactions = 0;
    const model = new MockLanguageModelV3({
      modelId: MODEL,
      doGenerate: async (options) => {
        call++;
        expectProblemsShown(JSON.stringify(options.prompt), call);
        const usage = {
          inputTokens: { total: 100, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 20, text: 20, reasoning: undefined },
        };
        if (call > STEPS)
          return { content: [{ type: "text", text: "Done." }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
        return {
          content: [
            {
              type: "tool-call",
              toolCallId: `call_${call}`,
              toolName: "run",
              input: JSON.stringify({ command: command(call), step: call }),
            },
          ],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    const tools = {
      run: tool({
        description: "Run a shell command",
        inputSchema: jsonSchema<{ command: string; step: number }>({
          type: "object",
          properties: { command: { type: "string" }, step: { type: "number" } },
          required: ["command", "step"],
        }),
        execute: async ({ step }: { command: string; step: number }) => output(step),
      }),
    };
    const middleware = aiSdkMiddleware({
      model: MODEL,
      limits: LIMITS,
      logger: quiet,
      onCompact: (e) => e.report !== undefined && compactions++,
      compaction: { summarizer },
    });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware }),
      system: SYSTEM,
      prompt: TASK,
      tools,
      stopWhen: stepCountIs(STEPS + 5),
      maxOutputTokens: RESERVED_OUTPUT,
    });
    expect(result.text).toBe("Done.");
    expect(call).toBe(STEPS + 1);
    // The levels ran many times: the early results were gone long before the build passed.
    expect(compactions).toBeGreaterThan(5);
    expect(middleware.fitter.problems.open).toHaveLength(0);
    expect(middleware.fitter.problems.record.problems.filter((p) => p.resolved !== undefined).map((p) => p.label)).toEqual(
      expect.arrayContaining(["`npm run build`"]),
    );
  });

  it("LangChain createAgent, 60 steps", async () => {
    const model = fakeModel();
    let call = 0;
    for (let step = 1; step <= STEPS + 1; step++) {
      model.respond((messages: BaseMessage[]) => {
        call++;
        expectProblemsShown(JSON.stringify(messages.map((m) => m.content)), call);
        if (step > STEPS) return new AIMessage({ content: "Done." });
        return new AIMessage({
          content: "",
          tool_calls: [{ id: `call_${step}`, name: "run", args: { command: command(step), step }, type: "tool_call" }],
        });
      });
    }
    const run = langchainTool(async ({ step }) => output(step), {
      name: "run",
      description: "Run a shell command",
      schema: z.object({ command: z.string(), step: z.number() }),
    });
    const middleware = langchainMiddleware({ model: MODEL, limits: LIMITS, logger: quiet, compaction: { summarizer } });
    const agent = createAgent({ model, tools: [run], systemPrompt: SYSTEM, middleware: [middleware] });
    const state = await agent.invoke({ messages: [{ role: "user", content: TASK }] }, { recursionLimit: 500 });
    expect(state.messages[state.messages.length - 1]?.text).toBe("Done.");
    expect(call).toBe(STEPS + 1);
    expect(middleware.fitter.problems.open).toHaveLength(0);
  });
});
