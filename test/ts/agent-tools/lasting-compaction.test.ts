// A compaction the agent asked for lasts across the requests that follow, in an adapter whose
// framework hands it the whole history every time: here a chat app's turns, each one generateText
// over the history so far with contextMiddleware. The whole history fits the 80,000-token window
// throughout, so nothing but the asked compaction compacts anything:
// - turn 1 reads 14 files, asks for a compaction keeping call_3, reads one more and answers; the
//   compaction clears old results at the next request;
// - turn 2 (a new generateText, the history of turn 1 handed back with a new question) still
//   sends those results cleared, call_3 whole, the result read after the compaction whole;
// - turn 3, whose caller rewrote the history (the first question edited), is a history the
//   compaction did not run on: it goes out whole, as it did before;
// - recall gives back every result the compaction cleared, byte for byte.
import * as ai from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { getCounter, type ToolDefinition } from "ctxwin";
import { contextMiddleware, contextTools, recallTool } from "ctxwin/ai-sdk";
import { Recall } from "ctxwin/recall";
import { definitions, type CallOptions } from "../adapters/ai-sdk-suite.js";
import { MODEL, SYSTEM, TASK, toolOutput } from "../support/tool-loop.js";
import { COMPACTION, LIMITS, RESERVED_OUTPUT, WINDOW } from "./agent-loop.js";

type Part = { type: string; text?: string; toolCallId?: string; output?: { type: string; value: unknown } };
interface Request {
  results: Map<string, string>;
  tokens: number;
}

const counter = getCounter(MODEL);
const READS = 14;
const usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
};

function toolCall(toolCallId: string, toolName: string, input: unknown) {
  return {
    content: [{ type: "tool-call" as const, toolCallId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls" as const, raw: undefined },
    usage,
    warnings: [],
  };
}

function answer(text: string) {
  return { content: [{ type: "text" as const, text }], finishReason: { unified: "stop" as const, raw: undefined }, usage, warnings: [] };
}

describe("a compaction the agent asked for, across a chat app's turns (contextMiddleware)", () => {
  it("lasts while the history starts with the one it ran on, ends when the caller rewrites it, and recall reads back the originals", async () => {
    // Reads of up to 3,000 tokens: a whole result reads back in one answer.
    const recall = new Recall({ counter, maxTokens: 4000 });
    const middleware = contextMiddleware({ model: MODEL, limits: LIMITS, compaction: COMPACTION, onCompact: recall.onCompact });
    const requests: Request[] = [];
    // Turn 1: reads 1..14, compact_context, read 16, answer; turn 2: read 18, answer; turn 3: answer.
    const moves = [
      ...Array.from({ length: READS }, (_, i) => () => toolCall(`call_${i + 1}`, "read_file", { step: i + 1 })),
      () => toolCall("compact_15", "compact_context", { reason: "phase one done", keep: ["call_3"] }),
      () => toolCall("call_16", "read_file", { step: 16 }),
      () => answer("Phase one read."),
      () => toolCall("call_18", "read_file", { step: 18 }),
      () => answer("Read module 18."),
      () => answer("Done."),
    ];
    const model = new MockLanguageModelV3({
      modelId: MODEL,
      doGenerate: async (options) => {
        const results = new Map<string, string>();
        for (const message of options.prompt)
          for (const part of (Array.isArray(message.content) ? message.content : []) as Part[])
            if (part.type === "tool-result") results.set(part.toolCallId as string, String(part.output?.value));
        const tools: ToolDefinition[] = definitions(options as unknown as CallOptions);
        requests.push({ results, tokens: counter.countMessages(options.prompt as never, { tools }) });
        const move = moves[requests.length - 1];
        if (move === undefined) throw new Error(`request ${requests.length} was not expected`);
        return move() as never;
      },
    });
    const tools = {
      read_file: ai.tool({
        description: "Read a file of the repository",
        inputSchema: ai.jsonSchema<{ step: number }>({ type: "object", properties: { step: { type: "number" } }, required: ["step"] }),
        execute: async ({ step }) => toolOutput(step),
      }),
      recall: recallTool(recall),
      ...contextTools(middleware),
    };
    const wrapped = ai.wrapLanguageModel({ model, middleware });
    const turn = async (messages: ai.ModelMessage[]) => {
      const result = await ai.generateText({
        model: wrapped,
        system: SYSTEM,
        messages,
        tools,
        stopWhen: ai.stepCountIs(30),
        maxOutputTokens: RESERVED_OUTPUT,
      });
      return [...messages, ...result.response.messages];
    };

    const first = await turn([{ role: "user", content: TASK }]);
    expect(requests).toHaveLength(READS + 3);
    // Request 16, after the compaction: old results cleared, call_3 kept whole.
    const cleared = [...(requests[15] as Request).results].filter(([, value]) => value.startsWith("[tool result cleared:"));
    expect(cleared.length).toBeGreaterThanOrEqual(5);
    expect((requests[15] as Request).results.get("call_3")).toBe(toolOutput(3));

    await turn([...first, { role: "user", content: "Now read module 18." }]);
    expect(requests).toHaveLength(READS + 5);
    for (const request of requests.slice(16, READS + 5)) {
      // The whole history fits (under half the window): the compaction lasts all the same.
      expect(request.tokens).toBeLessThan(WINDOW / 2);
      for (const [id, placeholder] of cleared) expect(request.results.get(id)).toBe(placeholder);
      expect(request.results.get("call_3")).toBe(toolOutput(3));
      expect(request.results.get("call_16")).toBe(toolOutput(16));
    }
    expect((requests[READS + 4] as Request).results.get("call_18")).toBe(toolOutput(18));

    // The caller rewrites the history (the first question edited): no longer the history the
    // compaction ran on, it goes out whole.
    const rewritten: ai.ModelMessage[] = [{ role: "user", content: `${TASK} (customers in Europe too)` }, ...first.slice(1)];
    await turn([...rewritten, { role: "user", content: "Summarize." }]);
    const last = requests.at(-1) as Request;
    for (const [id] of cleared) expect(last.results.get(id)).toBe(toolOutput(Number(id.slice("call_".length))));

    for (const [id] of cleared) {
      const back = await recall.read(id);
      expect(back).toMatchObject({ ok: true, truncated: false });
      expect(back.ok && back.text === toolOutput(Number(id.slice("call_".length))), `${id} reads back as the tool returned it`).toBe(true);
    }
  });
});
