import { generateText, streamText } from "ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextManager, extractiveSummarizer, type AgentEvent, type SummaryEvent } from "ctxwin";
import { SUMMARY_PROMPT } from "../../../ts/agent-threads/context-manager.js";
import { agentSession, makeThread } from "../support/fixtures.js";

const toolName = fc.stringMatching(/^[a-z][a-z_]{2,15}$/);
const fileName = fc
  .tuple(fc.stringMatching(/^[a-z]{1,8}$/), fc.stringMatching(/^[a-z]{1,8}$/), fc.constantFrom("ts", "py", "md", "json"))
  .map(([dir, base, ext]) => `${dir}/${base}.${ext}`);

describe("extractiveSummarizer", () => {
  it("is deterministic and offline", () => {
    const model = extractiveSummarizer();
    const lines = agentSession(5).map((e) => JSON.stringify(e));
    expect(model.summarizeEvents(lines)).toBe(extractiveSummarizer().summarizeEvents(lines));
  });

  it("writes 2-3 sentences that keep tool names, paths, numbers and error messages (property)", () => {
    const model = extractiveSummarizer();
    fc.assert(
      fc.property(
        toolName,
        fileName,
        fc.integer({ min: 1, max: 99999 }),
        fc.stringMatching(/^[A-Z][a-z]{3,12} failed$/),
        (tool, path, n, error) => {
          const events: AgentEvent[] = [
            { type: "tool_call", timestamp: 1, iteration: 1, toolName: tool, toolCallId: "c1", args: { path, limit: n } },
            { type: "tool_result", timestamp: 2, iteration: 1, toolCallId: "c1", result: `read ${path}` },
            { type: "error", timestamp: 3, iteration: 1, error, recoverable: false },
          ];
          const text = model.summarizeEvents(events.map((e) => JSON.stringify(e)));
          expect(text).toContain(tool);
          expect(text).toContain(path);
          expect(text).toContain(String(n));
          expect(text).toContain(error);
          const sentences = text.split(/(?<=[.!?]"?)\s+(?=[A-Z])/);
          expect(sentences.length).toBeGreaterThanOrEqual(2);
          expect(sentences.length).toBeLessThanOrEqual(3);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("works as an AI SDK model with generateText and streamText", async () => {
    const model = extractiveSummarizer();
    const prompt =
      SUMMARY_PROMPT +
      agentSession(1)
        .map((e) => JSON.stringify(e))
        .join("\n");
    const { text } = await generateText({ model, prompt });
    expect(text).toBe(model.summarize(prompt));
    expect(text).toContain("read_file");

    const stream = streamText({ model, prompt: "Moved 12 files into lib/utils.ts and lib/core.ts." });
    let streamed = "";
    for await (const delta of stream.textStream) streamed += delta;
    expect(streamed).toBe(
      "Moved 12 files into lib/utils.ts and lib/core.ts. Referenced lib/utils.ts and lib/core.ts, with 12 files. No errors were reported.",
    );
  });

  it("summarizes a 2,000-event iteration quickly enough to stay off the critical path", async () => {
    const events = agentSession(1000).map((e) => ({ ...e, iteration: 1 }));
    const thread = makeThread([...events, ...agentSession(2).map((e) => ({ ...e, iteration: 99 }))]);
    await new ContextManager({ keepRecentIterations: 0 }).summarize(thread, extractiveSummarizer());
    const first = thread.events[0] as SummaryEvent;
    expect(first.summary).toMatch(/^Called read_file \(500x\) and run_tests \(500x\) and received 1000 results\./);
    expect(first.summary).toContain("and 988 more"); // 1000 paths, 12 written out
  });
});
