// Context compaction: tool results, progressive levels, concurrency.
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it, vi } from "vitest";
import { ContextLimits, MessageContextManager, TiktokenCounter, TruncationMode, extractiveSummarizer, type MessageLike } from "ctxwin";
import { ContextCompactor } from "ctxwin/compaction";
import { isClearedToolResult } from "../../../ts/compaction/levels/clear-old-tool-results.js";
import { loadSession } from "../../../examples/replay.js";

const counter = new TiktokenCounter({ model: "gpt-4o" });
type Msg = MessageLike & { tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }> };
const chat = (n: number, size = 40): Msg[] =>
  Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `Turn ${i}: ${"words ".repeat(size)}` }));
const quiet = { warn: () => {} };

describe("ContextCompactor", () => {
  it("summarizes old messages, keeps the last 10, and includes one summary message", async () => {
    const prompts: string[] = [];
    const compactor = new ContextCompactor({
      model: async (prompt: string) => (prompts.push(prompt), "The user asked about 50 things."),
      keepUserTokens: 0,
    });
    const messages = chat(50);
    const out = await compactor.compact(messages, 500, counter, { preserveLast: 10 });
    expect(out).toHaveLength(11);
    // The head names the newest ids that keep it under 100 tokens (at most 12) and counts the rest.
    expect(out[0]).toEqual({
      role: "system",
      content: expect.stringMatching(
        /^Summary of the 40 earlier messages \(\d+ KB; recall by id: (m[0-9a-f]{8}, ){1,11}m[0-9a-f]{8}; not named: \d+ other messages\):\nThe user asked about 50 things\.$/,
      ),
    });
    const head = (out[0] as { content: string }).content.split("\n")[0] as string;
    expect(counter.count(head)).toBeLessThan(100);
    const named = /recall by id: ([^;]*);/.exec(head)?.[1]?.split(", ") ?? [];
    expect(named.length + Number(/not named: (\d+)/.exec(head)?.[1])).toBe(40);
    expect(out.slice(1)).toEqual(messages.slice(40));
    out.slice(1).forEach((m, i) => expect(m).toBe(messages[40 + i]));
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain("Turn 0:");
    expect(prompts[0]).not.toContain("Turn 40:");
  });

  it("returns the messages and calls no model when there are fewer than minMessagesToSummarize", async () => {
    const model = vi.fn(async () => "x");
    const compactor = new ContextCompactor({ model, minMessagesToSummarize: 8 });
    const messages = chat(5, 400);
    expect(await compactor.compact(messages, 10, counter)).toEqual(messages);
    expect(model).not.toHaveBeenCalled();
  });

  it("returns the messages unchanged when the model fails, and reports the error", async () => {
    const warn = vi.fn();
    const compactor = new ContextCompactor({
      model: async () => {
        throw new Error("rate limited");
      },
      logger: { warn },
    });
    const failed = vi.fn();
    compactor.on("failed", failed);
    const messages = chat(30);
    const result = await compactor.compactWithDetails(messages, 100, counter);
    expect(result.messages).toEqual(messages);
    expect(result.summarized).toBe(0);
    expect(result.error?.message).toBe("rate limited");
    expect(warn.mock.calls[0]?.[0]).toMatch(/summarizing 20 messages failed, keeping them: rate limited/);
    expect(failed).toHaveBeenCalledTimes(1);
  });

  it("bounds the summary and the summarizer's input", async () => {
    let prompt = "";
    const compactor = new ContextCompactor({
      model: async (p: string) => ((prompt = p), "blah ".repeat(5000)),
      maxSummaryTokens: 100,
      maxInputTokens: 2000,
    });
    const messages: Msg[] = [];
    for (let i = 0; i < 20; i++) {
      messages.push({
        role: "assistant",
        content: null,
        tool_calls: [{ id: `c${i}`, type: "function", function: { name: "read_file", arguments: `{"path":"f${i}.ts"}` } }],
      });
      messages.push({ role: "tool", tool_call_id: `c${i}`, content: `contents ${i} `.repeat(3000) } as Msg);
    }
    messages.push({ role: "user", content: "next?" });
    const result = await compactor.compactWithDetails(messages, 1000, counter, { preserveLast: 3 });
    expect(counter.count(prompt)).toBeLessThanOrEqual(2000);
    // The bound is the summary's text; its head names what recall reads back (at most 12 ids).
    const [head, ...body] = result.summary!.content.split("\n");
    expect(head).toMatch(
      /^Summary of the 38 earlier messages \(\d+ KB; recall by id: (c\d+, ){11}c\d+; not named: 7 older tool results\):$/,
    );
    expect(counter.count(body.join("\n"))).toBeLessThanOrEqual(100 + 20);
    // The cut kept the last tool unit whole: its call and result, then the question.
    expect(result.messages.slice(1)).toEqual(messages.slice(-3));
  });

  it("with the extractive summarizer, keeps every tool name, error message and file path", async () => {
    const session = loadSession();
    const messages: Msg[] = [{ role: "user", content: session.task }];
    for (const step of session.iterations) {
      messages.push({
        role: "assistant",
        content: step.thought,
        tool_calls: step.calls.map((c) => ({
          id: c.toolCallId,
          type: "function" as const,
          function: { name: c.toolName, arguments: JSON.stringify(c.args) },
        })),
      });
      for (const c of step.calls)
        messages.push({
          role: "tool",
          tool_call_id: c.toolCallId,
          content: c.error ?? (typeof c.result === "string" ? c.result : JSON.stringify(c.result)),
        } as Msg);
    }
    const compactor = new ContextCompactor({ model: extractiveSummarizer(), maxSummaryTokens: 20000 });
    const result = await compactor.compactWithDetails(messages, 1000, counter, { preserveLast: 0 });
    const summary = result.summary!.content;
    for (const step of session.iterations) {
      for (const c of step.calls) {
        expect(summary).toContain(c.toolName);
        if (c.error) expect(summary).toContain(c.error);
        if (typeof c.args.path === "string") expect(summary).toContain(c.args.path);
      }
    }
  });
});

/** A manager whose effective limit is `limit` tokens. */
const manager = (limit: number, extra: Partial<ConstructorParameters<typeof MessageContextManager>[0]> = {}) =>
  new MessageContextManager<Msg>({
    model: "gpt-4o",
    counter,
    limits: new ContextLimits({ model: "gpt-4o", maxTokens: limit, maxOutputTokens: 0, reservedTokens: 0 }),
    logger: quiet,
    ...extra,
    compaction: { autoTruncate: false, ...extra.compaction },
  });

function toolHistory(units: number, resultChars: number): Msg[] {
  const out: Msg[] = [];
  for (let i = 0; i < units; i++) {
    out.push({ role: "user", content: `Check file ${i}` });
    out.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id: `c${i}`, type: "function", function: { name: "read_file", arguments: `{"path":"src/f${i}.ts"}` } }],
    });
    out.push({ role: "tool", tool_call_id: `c${i}`, content: `line of src/f${i}.ts\n`.repeat(resultChars / 20) } as Msg);
  }
  return out;
}

describe("compactIfNeeded (progressive compaction)", () => {
  it("SUMMARIZE mode with an llm has a composite strategy and a compactor", () => {
    const cm = manager(1000, { mode: TruncationMode.SUMMARIZE, compaction: { summarizer: extractiveSummarizer() } });
    expect(cm.compactor).toBeInstanceOf(ContextCompactor);
    expect(manager(1000).compactor).toBeUndefined();
  });

  it("at 92% usage, compacts and usage goes down", async () => {
    const cm = manager(10000, { mode: TruncationMode.SUMMARIZE, compaction: { summarizer: extractiveSummarizer() } });
    cm.load(chat(200, 30));
    const limit = cm.limits.effectiveLimit;
    while (cm.usagePercentage < 92) cm.addMessage({ role: "user", content: "more ".repeat(40) });
    const before = cm.tokenUsage;
    const report = await cm.compactIfNeeded({ threshold: 0.9 });
    expect(report.tokensBefore).toBe(before);
    expect(cm.tokenUsage).toBeLessThan(before);
    expect(cm.tokenUsage).toBeLessThanOrEqual(limit * 0.9);
    expect(report.levels.find((l) => l.level === 3)?.applied).toBe(true);
    expect(report.summary?.content).toMatch(/^Summary of the \d+ earlier messages \([^\n]*\):/);
  });

  it("runs the levels in order and stops applying them once under the threshold", async () => {
    const cm = manager(20000, { compaction: { maxToolResultTokens: 300, keepToolResults: 2 } });
    cm.load(toolHistory(12, 4000)); // 12 results of ~1000 tokens
    const report = await cm.compactIfNeeded({ threshold: 0.5 });
    const [l1, l2, l3] = [1, 2, 3].map((n) => report.levels.find((l) => l.level === n));
    expect(l1).toMatchObject({ level: 1, applied: true });
    // Oldest first, only as many as reach the target (10,000): one result frees ~700 tokens.
    expect(l1!.messagesChanged).toBeGreaterThan(0);
    expect(l1!.messagesChanged).toBeLessThan(12);
    expect(l3).toMatchObject({ level: 3, applied: false }); // no llm
    expect(report.tokensAfter).toBeLessThanOrEqual(10000);
    expect(report.tokensAfter).toBeGreaterThan(10000 - 1000);
    expect(l2!.applied).toBe(false);
    // Replacements are copies: the calls and their ids are unchanged.
    for (const { before, after } of report.replaced) {
      expect(after).not.toBe(before);
      expect((after as { tool_call_id?: string }).tool_call_id).toBe((before as { tool_call_id?: string }).tool_call_id);
    }
  });

  it("clears old tool results beyond the last K tool units, keeping the calls", async () => {
    const cm = manager(4000, { compaction: { maxToolResultTokens: 1000, keepToolResults: 2 } });
    cm.load(toolHistory(10, 2400));
    await cm.compactIfNeeded({ threshold: 0.9 });
    const tools = cm.getMessages().filter((m) => m.role === "tool");
    const cleared = tools.filter((m) => isClearedToolResult(m.content));
    expect(cleared.length).toBeGreaterThan(0);
    expect(tools.slice(-2).every((m) => !isClearedToolResult(m.content))).toBe(true);
    expect(cm.getMessages().filter((m) => m.tool_calls).length).toBeGreaterThanOrEqual(tools.length);
  });

  it("never blocks addMessage, shares one compaction, and keeps messages added meanwhile", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let calls = 0;
    const slow = new MockLanguageModelV3({
      doGenerate: async () => {
        calls++;
        await gate;
        return {
          content: [{ type: "text", text: "Earlier: setup discussed." }],
          finishReason: { unified: "stop", raw: undefined },
          usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
          warnings: [],
        };
      },
    });
    const cm = manager(8000, { mode: TruncationMode.SUMMARIZE, compaction: { summarizer: slow } });
    cm.load(chat(120, 30));
    const first = cm.compactIfNeeded({ threshold: 0.5 });
    const second = cm.compactIfNeeded({ threshold: 0.5 });
    expect(second).toBe(first); // not started twice
    const late: Msg[] = [
      { role: "user", content: "late 1" },
      { role: "assistant", content: "late 2" },
    ];
    for (const m of late) cm.addMessage(m); // returns at once while the model is busy
    await new Promise((r) => setTimeout(r, 10));
    release();
    const report = await first;
    expect(calls).toBe(1);
    expect(report.summary).toBeDefined();
    expect(cm.getMessages().slice(-2)).toEqual(late);
    // The summary is a user message by default (as on the adapters): the history holds no system message.
    expect(report.summary?.role).toBe("user");
    expect(cm.getMessages()).toContainEqual(report.summary);
    expect(cm.getMessages().filter((m) => m.role === "system")).toHaveLength(0);
  });

  it("reports a failing llm in the level and still brings usage down by truncating", async () => {
    const cm = manager(6000, {
      mode: TruncationMode.SUMMARIZE,
      compaction: {
        summarizer: async () => {
          throw new Error("down");
        },
      },
    });
    cm.load(chat(150, 30));
    const report = await cm.compactIfNeeded({ threshold: 0.8 });
    expect(report.levels.map((l) => l.level)).toEqual([0, 1, 2, 3, 4]);
    expect(report.levels[3]).toMatchObject({ level: 3, applied: true, error: "down" });
    expect(report.levels[4]).toMatchObject({ level: 4, applied: true });
    expect(cm.tokenUsage).toBeLessThanOrEqual(6000 * 0.8);
  });
});

describe("summary role", () => {
  it("writes the summary with the configured role, and the manager never trims it away", async () => {
    const compactor = new ContextCompactor({ model: async () => "short summary", summaryRole: "user" });
    const out = await compactor.compactWithDetails(chat(30), 100, counter);
    expect(out.summary?.role).toBe("user");
    expect(() => new ContextCompactor({ model: async () => "x", summaryRole: "tool" as never })).toThrow(RangeError);

    const cm = manager(3000, {
      mode: TruncationMode.SUMMARIZE,
      compaction: { summarizer: async () => "what happened so far", summaryRole: "assistant" },
    });
    cm.load(chat(120, 30));
    const report = await cm.compactIfNeeded({ threshold: 0.5 });
    expect(report.summary?.role).toBe("assistant");
    expect(cm.getMessages()).toContain(report.summary);
    cm.truncate(200);
    expect(cm.getMessages()).toContain(report.summary);
  });
});
