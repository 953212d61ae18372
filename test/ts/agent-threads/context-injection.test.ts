import { describe, expect, it } from "vitest";
import { ContextManager, extractiveSummarizer, type AgentEvent, type SummaryEvent } from "ctxwin";
import { buildContextInjection } from "ctxwin/agent-threads";
import { agentSession, makeThread } from "../support/fixtures.js";

const summary = (iterations: number[], text: string): SummaryEvent => ({
  type: "summary",
  timestamp: 1,
  iteration: iterations[iterations.length - 1] ?? 0,
  summarizedIterations: iterations,
  summary: text,
});

describe("buildContextInjection", () => {
  it("is empty without summaries", () => {
    const cm = new ContextManager();
    expect(cm.buildContextInjection(makeThread())).toBe("");
    expect(cm.buildContextInjection(makeThread(agentSession(3)))).toBe("");
  });

  it("formats summaries byte-identically to the reference", () => {
    const events: AgentEvent[] = [summary([1, 2], "Read two files."), summary([3], "Ran the tests; 2 failed."), ...agentSession(1)];
    expect(new ContextManager().buildContextInjection(makeThread(events))).toBe(
      "## Previous Iteration Summaries\n\n" +
        "### Iteration(s) 1, 2\nRead two files.\n\n" +
        "### Iteration(s) 3\nRan the tests; 2 failed.\n\n",
    );
  });

  it("is also a standalone function, and follows summarize()", async () => {
    const cm = new ContextManager({ keepRecentIterations: 2 });
    const thread = makeThread(agentSession(4));
    await cm.summarize(thread, extractiveSummarizer());
    const injection = buildContextInjection(thread);
    expect(injection.startsWith("## Previous Iteration Summaries\n\n### Iteration(s) 1\nCalled read_file (1x)")).toBe(true);
    expect(injection).toContain("### Iteration(s) 2\nCalled run_tests (1x)");
    expect(injection.endsWith("\n\n")).toBe(true);
  });
});
