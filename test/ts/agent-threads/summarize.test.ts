import { generateText } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextManager, extractiveSummarizer, type AgentEvent, type AgentThread, type SummaryEvent } from "ctxwin";
import { SUMMARY_PROMPT } from "../../../ts/agent-threads/context-manager.js";
import { agentSession, makeThread } from "../support/fixtures.js";

/** A mock AI SDK model whose answer is derived from the prompt, and that records its prompts. */
function echoModel(answer = (prompt: string) => `Summary of ${prompt.split("\n").length - 2} events.`) {
  const prompts: string[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      const message = options.prompt.find((m) => m.role === "user");
      const text = message && Array.isArray(message.content) ? message.content.map((p) => (p.type === "text" ? p.text : "")).join("") : "";
      prompts.push(text);
      return {
        content: [{ type: "text", text: answer(text) }],
        finishReason: { unified: "stop", raw: undefined },
        usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
        warnings: [],
      };
    },
  });
  return { model, prompts };
}

// The reference implementation's summarize, written out: the oracle for the differential test.
async function referenceSummarize(thread: AgentThread, model: unknown, keepRecent: number): Promise<AgentThread> {
  const byIteration = new Map<number, AgentEvent[]>();
  for (const event of thread.events) {
    const list = byIteration.get(event.iteration) ?? [];
    list.push(event);
    byIteration.set(event.iteration, list);
  }
  const iterations = [...byIteration.keys()].sort((a, b) => a - b);
  const cutoff = Math.max(...iterations) - keepRecent;
  const summaries: AgentEvent[] = [];
  for (const iteration of iterations.filter((i) => i <= cutoff)) {
    const events = byIteration.get(iteration)!;
    if (events.length === 1 && events[0]!.type === "summary") {
      summaries.push(events[0]!);
      continue;
    }
    const prompt = SUMMARY_PROMPT + events.map((e) => JSON.stringify(e)).join("\n");
    const { text } = await generateText({ model: model as never, prompt });
    summaries.push({ type: "summary", timestamp: 0, iteration, summarizedIterations: [iteration], summary: text });
  }
  thread.events = [...summaries, ...thread.events.filter((e) => e.iteration > cutoff)];
  return thread;
}

const withoutSummaryTimestamps = (events: AgentEvent[]) => events.map((e) => (e.type === "summary" ? { ...e, timestamp: 0 } : e));

describe("summarize", () => {
  it("replaces old iteration events with SummaryEvent entries and keeps recent ones unchanged", async () => {
    const cm = new ContextManager({ keepRecentIterations: 3 });
    const events = agentSession(10);
    const recent = events.filter((e) => e.iteration > 7);
    const firstPrompt =
      SUMMARY_PROMPT +
      events
        .filter((e) => e.iteration === 1)
        .map((e) => JSON.stringify(e))
        .join("\n");
    const thread = makeThread(events);
    const { model, prompts } = echoModel();
    const result = await cm.summarize(thread, model);

    expect(result).toBe(thread); // the same object, edited in place
    expect(thread.events).toBe(events); // even the same array
    const summaries = thread.events.filter((e): e is SummaryEvent => e.type === "summary");
    expect(summaries.map((s) => s.iteration)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(summaries.map((s) => s.summarizedIterations)).toEqual([[1], [2], [3], [4], [5], [6], [7]]);
    expect(thread.events.slice(0, 7)).toEqual(summaries); // summaries first
    expect(thread.events.slice(7)).toEqual(recent); // then the recent events, untouched, in order
    thread.events.slice(7).forEach((e, i) => expect(e).toBe(recent[i]));
    expect(prompts).toHaveLength(7);
    expect(prompts[0]).toBe(firstPrompt);
    expect(thread.updatedAt).toBeGreaterThan(1_700_000_000_000);
  });

  it("gives the same thread as the reference implementation (differential, property)", async () => {
    const event = fc.record({
      type: fc.constantFrom("message" as const),
      timestamp: fc.nat(),
      iteration: fc.integer({ min: -2, max: 12 }),
      role: fc.constantFrom("user" as const, "assistant" as const),
      content: fc.string({ maxLength: 30 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 30 }), fc.integer({ min: 0, max: 5 }), async (events, keep) => {
        const ours = makeThread(structuredClone(events));
        const theirs = makeThread(structuredClone(events));
        await new ContextManager({ keepRecentIterations: keep }).summarize(ours, echoModel().model);
        await referenceSummarize(theirs, echoModel().model, keep);
        expect(withoutSummaryTimestamps(ours.events)).toEqual(withoutSummaryTimestamps(theirs.events));
      }),
      { numRuns: 150 },
    );
  });

  it("leaves an iteration that is already one summary event as it is, so a second pass is a no-op", async () => {
    const cm = new ContextManager({ keepRecentIterations: 2 });
    const thread = makeThread(agentSession(6));
    const { model, prompts } = echoModel();
    await cm.summarize(thread, model);
    const first = thread.events.slice();
    expect(prompts).toHaveLength(4);
    await cm.summarize(thread, model);
    expect(prompts).toHaveLength(4);
    expect(thread.events).toEqual(first);
    thread.events.forEach((e, i) => expect(e).toBe(first[i]));
  });

  it("does nothing when there are no old iterations", async () => {
    const cm = new ContextManager({ keepRecentIterations: 3 });
    const thread = makeThread(agentSession(3));
    const before = thread.events.slice();
    const { model, prompts } = echoModel();
    await cm.summarize(thread, model);
    expect(thread.events).toEqual(before);
    expect(thread.updatedAt).toBe(1_700_000_000_000);
    expect(prompts).toHaveLength(0);
    await cm.summarize(makeThread(), model);
  });

  it("accepts a plain (prompt) => Promise<string> function", async () => {
    const thread = makeThread(agentSession(5));
    await new ContextManager({ keepRecentIterations: 1 }).summarize(thread, async (prompt) => `len ${prompt.length}`);
    expect(thread.events.filter((e) => e.type === "summary")).toHaveLength(4);
    expect((thread.events[0] as SummaryEvent).summary).toMatch(/^len \d+$/);
  });

  it("accepts a LangChain-style invoke(messages) model, with string or part content", async () => {
    const received: unknown[] = [];
    const invoker = {
      invoke: async (messages: Array<{ role: string; content: string }>) => {
        received.push(messages);
        return {
          content: [
            { type: "text", text: "from " },
            { type: "text", text: "langchain" },
          ],
        };
      },
    };
    const thread = makeThread(agentSession(3));
    await new ContextManager({ keepRecentIterations: 1 }).summarize(thread, invoker);
    expect((thread.events[0] as SummaryEvent).summary).toBe("from langchain");
    expect(received[0]).toEqual([{ role: "user", content: expect.stringContaining(SUMMARY_PROMPT) }]);
  });

  it("accepts the extractive summarizer, which keeps tool names, paths, numbers and errors", async () => {
    const thread = makeThread(agentSession(6));
    await new ContextManager({ keepRecentIterations: 1 }).summarize(thread, extractiveSummarizer());
    const fifth = thread.events.find((e) => e.type === "summary" && e.iteration === 5) as SummaryEvent;
    expect(fifth.summary).toContain("read_file");
    expect(fifth.summary).toContain("src/module5.ts");
    expect(fifth.summary).toContain("50");
    expect(fifth.summary).toContain("TypeError: cannot read property 'x' at src/module5.ts:5");
  });

  it("runs at most 4 model calls at once by default, and the configured number otherwise", async () => {
    for (const [options, limit] of [
      [{}, 4],
      [{ summaryConcurrency: 2 }, 2],
      [{ summaryConcurrency: 1 }, 1],
    ] as const) {
      let inFlight = 0;
      let peak = 0;
      const slow = async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        return "ok";
      };
      await new ContextManager({ keepRecentIterations: 0, ...options }).summarize(makeThread(agentSession(12)), slow);
      expect(peak).toBe(limit);
    }
  });

  it("never loses an iteration when the model fails: an extractive digest plus the reason", async () => {
    const thread = makeThread(agentSession(4));
    let calls = 0;
    const flaky = async () => {
      calls++;
      if (calls === 2) throw new Error("rate limited (429)");
      if (calls === 3) return "   ";
      return "fine";
    };
    await new ContextManager({ keepRecentIterations: 1, summaryConcurrency: 1 }).summarize(thread, flaky);
    const summaries = thread.events.filter((e): e is SummaryEvent => e.type === "summary");
    expect(summaries).toHaveLength(3);
    expect(summaries[0]!.summary).toBe("fine");
    expect(summaries[1]!.summary).toMatch(/run_tests.*src\/module2\.ts.*\(summarization failed: rate limited \(429\)\)$/);
    expect(summaries[2]!.summary).toMatch(/read_file.*\(summarization failed: the model returned an empty summary\)$/);
  });

  it("records an AI SDK model's errors in the digest too", async () => {
    const failing = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new Error("provider unavailable");
      },
    });
    const thread = makeThread(agentSession(2));
    await new ContextManager({ keepRecentIterations: 1 }).summarize(thread, failing);
    expect((thread.events[0] as SummaryEvent).summary).toMatch(/\(summarization failed: .*provider unavailable.*\)$/);
  });

  it("keeps events appended to the thread while the model calls run", async () => {
    const thread = makeThread(agentSession(5));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const pending = new ContextManager({ keepRecentIterations: 1 }).summarize(thread, async () => (await gate, "s"));
    const late: AgentEvent = { type: "message", timestamp: 1, iteration: 6, role: "user", content: "late" };
    thread.events.push(late);
    release();
    await pending;
    expect(thread.events.at(-1)).toBe(late);
    expect(thread.events.filter((e) => e.type === "summary")).toHaveLength(4);
  });
});

// A drop-in for the reference: it hands the model to generateText only for an old
// iteration, so its own test "summarize preserves recent iterations unchanged" passes `{}` as the
// model on a thread where nothing is old enough; ctxwin must return that thread too.
describe("summarize checks the model only when a summary is to be written", () => {
  it("returns a thread with nothing old enough unchanged, whatever the model", async () => {
    const cm = new ContextManager({ keepRecentIterations: 3 });
    for (const model of [{}, undefined, null, 42]) {
      const thread = makeThread(agentSession(3));
      const before = structuredClone(thread);
      const result = await cm.summarize(thread, model as never);
      expect(result).toBe(thread);
      expect(result).toEqual(before);
    }
  });

  it("needs no model when the old iterations are summaries already", async () => {
    const cm = new ContextManager({ keepRecentIterations: 1 });
    const thread = makeThread(agentSession(4));
    await cm.summarize(thread, extractiveSummarizer());
    const summaries = thread.events.filter((event) => event.type === "summary");
    await cm.summarize(thread, {} as never);
    expect(thread.events.filter((event) => event.type === "summary")).toEqual(summaries);
  });

  it("still rejects a bad model, with its code, when an iteration must be summarized", async () => {
    const cm = new ContextManager({ keepRecentIterations: 1 });
    const thread = makeThread(agentSession(4));
    const before = structuredClone(thread);
    const error = await cm.summarize(thread, {} as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect((error as { code?: string }).code).toBe("ERR_CTXWIN_INVALID_MODEL");
    expect(thread).toEqual(before);
  });
});

describe("estimateThreadTokens counts events without a numeric iteration, as the reference does", () => {
  it("sums estimateTokens(JSON.stringify(event)) over events whatever their fields", () => {
    const events = [
      { type: "custom", note: "no iteration" },
      { type: "message", iteration: "2", content: "x" },
    ];
    const expected = events.reduce((sum, event) => sum + Math.ceil(JSON.stringify(event).length / 3.5), 0);
    expect(new ContextManager().estimateThreadTokens(makeThread(events as never))).toBe(expected);
  });
});
