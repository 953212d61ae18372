// LangChain messages (BaseMessage instances of @langchain/core) wherever ctxwin takes messages:
// counted as the chat messages they stand for, planned over by the strategies, held by the
// manager, and handed back as the caller's own objects.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  AIMessage,
  AIMessageChunk,
  ChatMessage,
  HumanMessage,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
} from "@langchain/core/messages";
import { MessageContextManager, getCounter, type MessageLike } from "ctxwin";
import { ContextCompactor } from "ctxwin/compaction";
import { SlidingWindowStrategy, TokenBudgetStrategy } from "ctxwin/truncation";
import { mapToolResults } from "../../../ts/messages/tool-results.js";
import { removeReasoning } from "../../../ts/messages/reasoning.js";

const counter = getCounter("gpt-4o");

interface Turn {
  kind: "human" | "ai" | "system" | "calls";
  text: string;
  calls: Array<{ name: string; args: Record<string, unknown>; result: string }>;
}

/** Text a tokenizer finds hard: mixed scripts, emoji, special-token text, lone surrogates. */
const text = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constantFrom("", "<|endoftext|>", "naïve café 東京 🚀", "\ud800 lone", "line one\nline two\n"),
);
const turn: fc.Arbitrary<Turn> = fc.record({
  kind: fc.constantFrom("human", "ai", "system", "calls"),
  text,
  calls: fc.array(
    fc.record({
      name: fc.constantFrom("read_file", "run_tests", "grep"),
      args: fc.dictionary(fc.string({ maxLength: 6 }), text, { maxKeys: 3 }),
      result: text,
    }),
    { minLength: 1, maxLength: 3 },
  ),
});

/** The same conversation as LangChain messages and as OpenAI chat messages. */
function build(turns: Turn[]): { lc: BaseMessage[]; openai: MessageLike[] } {
  const lc: BaseMessage[] = [];
  const openai: MessageLike[] = [];
  turns.forEach((t, i) => {
    if (t.kind === "human") {
      lc.push(new HumanMessage(t.text));
      openai.push({ role: "user", content: t.text });
    } else if (t.kind === "system") {
      lc.push(new SystemMessage(t.text));
      openai.push({ role: "system", content: t.text });
    } else if (t.kind === "ai") {
      lc.push(new AIMessage(t.text));
      openai.push({ role: "assistant", content: t.text });
    } else {
      const ids = t.calls.map((_, k) => `call_${i}_${k}`);
      lc.push(
        new AIMessage({
          content: t.text,
          tool_calls: t.calls.map((c, k) => ({ id: ids[k], name: c.name, args: c.args, type: "tool_call" as const })),
        }),
      );
      openai.push({
        role: "assistant",
        content: t.text,
        tool_calls: t.calls.map((c, k) => ({
          id: ids[k],
          type: "function",
          function: { name: c.name, arguments: JSON.stringify(c.args) },
        })),
      });
      // Parallel results, answered in reverse order.
      [...t.calls.keys()].reverse().forEach((k) => {
        lc.push(new ToolMessage({ content: t.calls[k]?.result ?? "", tool_call_id: ids[k] ?? "" }));
        openai.push({ role: "tool", tool_call_id: ids[k], content: t.calls[k]?.result ?? "" });
      });
    }
  });
  return { lc, openai };
}

describe("LangChain messages", () => {
  it("count as the OpenAI chat messages they stand for", () => {
    fc.assert(
      fc.property(fc.array(turn, { maxLength: 8 }), (turns) => {
        const { lc, openai } = build(turns);
        expect(counter.countMessages(lc)).toBe(counter.countMessages(openai));
        expect([...counter.countEachMessage(lc)]).toEqual([...counter.countEachMessage(openai)]);
      }),
      { numRuns: 150 },
    );
  });

  it("are planned over by the strategies, which return the caller's instances with every call beside its results", () => {
    fc.assert(
      fc.property(fc.array(turn, { minLength: 1, maxLength: 10 }), fc.integer({ min: 20, max: 400 }), (turns, target) => {
        const { lc, openai } = build(turns);
        for (const strategy of [new TokenBudgetStrategy(), new SlidingWindowStrategy()]) {
          const kept = strategy.plan(lc, target, counter).kept;
          const keptOpenAI = strategy.plan(openai, target, counter).kept;
          // The same plan as over the OpenAI messages, and the very objects given.
          expect(kept.map((m) => lc.indexOf(m))).toEqual(keptOpenAI.map((m) => openai.indexOf(m)));
          for (const m of kept) expect(lc).toContain(m);
          const ids = new Set(kept.flatMap((m) => (AIMessage.isInstance(m) ? m.tool_calls?.map((c) => c.id) : [])));
          for (const m of kept) if (ToolMessage.isInstance(m)) expect(ids.has(m.tool_call_id)).toBe(true);
        }
      }),
      { numRuns: 100 },
    );
  });

  it("are held by MessageContextManager (addMessage, load), counted and trimmed as chat messages, and given back as they were added", () => {
    const { lc, openai } = build([
      { kind: "system", text: "You fix bugs.", calls: [] },
      { kind: "human", text: "Fix the failing test.", calls: [] },
      ...Array.from(
        { length: 12 },
        (_, i): Turn => ({
          kind: "calls",
          text: `step ${i}`,
          calls: [
            { name: "read_file", args: { path: `src/${i}.ts` }, result: "x".repeat(400) },
            { name: "grep", args: { q: "bug" }, result: "y ".repeat(150) },
          ],
        }),
      ),
    ]);
    const make = () =>
      new MessageContextManager<MessageLike>({
        model: "gpt-4o",
        limits: { maxTokens: 2500, maxOutputTokens: 500 },
        logger: { warn: () => {} },
      });
    const withLangChain = make();
    const withOpenAI = make();
    for (const m of lc) withLangChain.addMessage(m);
    for (const m of openai) withOpenAI.addMessage(m);
    expect(withLangChain.tokenUsage).toBe(withOpenAI.tokenUsage);
    const kept = withLangChain.getMessages();
    // Where a message stands in what was added: a result the default mode cleared before it
    // dropped turns is a copy (of the caller's own class), standing in its original's place.
    const place = <T extends object>(m: object, added: readonly T[]): number => {
      const at = added.indexOf(m as T);
      const id = (m as { tool_call_id?: unknown }).tool_call_id;
      return at >= 0 ? at : added.findIndex((o) => id !== undefined && (o as { tool_call_id?: unknown }).tool_call_id === id);
    };
    expect(kept.map((m) => place(m, lc))).toEqual(withOpenAI.getMessages().map((m) => place(m, openai)));
    expect(kept.length).toBeLessThan(lc.length);
    expect(kept[0]).toBe(lc[0]);
    for (const m of kept) {
      if (lc.includes(m as unknown as BaseMessage)) continue;
      expect(ToolMessage.isInstance(m) && String(m.content).startsWith("[tool result cleared: ")).toBe(true);
    }

    const one = make();
    const human = new HumanMessage("hello");
    one.addMessage(human);
    expect(one.getMessages()[0]).toBe(human);
  });

  it("include AIMessageChunk, ChatMessage, content blocks and legacy additional_kwargs tool calls", () => {
    const chunk = new AIMessageChunk({
      content: "",
      tool_call_chunks: [{ id: "c1", name: "grep", args: '{"q":"bug"}', index: 0, type: "tool_call_chunk" }],
    });
    const legacy = new AIMessage({
      content: "",
      additional_kwargs: { tool_calls: [{ id: "c2", type: "function", function: { name: "grep", arguments: '{"q":"x"}' } }] },
    });
    const blocks = new HumanMessage({
      content: [
        { type: "text", text: "look" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      ],
    });
    const reasoning = new AIMessage({
      content: [
        { type: "reasoning", reasoning: "think first" },
        { type: "text", text: "done" },
      ],
    });
    const chat = new ChatMessage({ role: "user", content: "hi" });
    expect(counter.countMessages([chunk, new ToolMessage({ content: "found", tool_call_id: "c1" })])).toBe(
      counter.countMessages([
        {
          role: "assistant",
          content: "",
          tool_calls: [{ id: "c1", type: "function", function: { name: "grep", arguments: '{"q":"bug"}' } }],
        },
        { role: "tool", tool_call_id: "c1", content: "found" },
      ]),
    );
    expect(counter.countMessages([legacy])).toBe(
      counter.countMessages([
        {
          role: "assistant",
          content: "",
          tool_calls: [{ id: "c2", type: "function", function: { name: "grep", arguments: '{"q":"x"}' } }],
        },
      ]),
    );
    expect(counter.countMessages([blocks])).toBe(
      counter.countMessages([
        {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
          ],
        },
      ]),
    );
    expect(counter.countMessages([reasoning])).toBe(
      counter.countMessages([
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "think first" },
            { type: "text", text: "done" },
          ],
        },
      ]),
    );
    expect(counter.countMessages([chat])).toBe(counter.countMessages([{ role: "user", content: "hi" }]));
    // A result joins its chunk's call: no orphan.
    const context = new MessageContextManager<MessageLike>({ model: "gpt-4o" });
    context.addMessage(chunk);
    context.addMessage(new ToolMessage({ content: "found", tool_call_id: "c1" }));
    expect(context.getMessages()).toHaveLength(2);
  });

  it("rewritten by compaction (a result replaced, reasoning cleared), stay instances of their class with every other field", () => {
    const result = new ToolMessage({ content: "long output", tool_call_id: "c9", name: "grep", id: "t1", status: "error" });
    const replaced = mapToolResults(result, () => "[cleared]");
    expect(ToolMessage.isInstance(replaced)).toBe(true);
    expect(replaced).toMatchObject({ content: "[cleared]", tool_call_id: "c9", name: "grep", id: "t1", status: "error" });
    expect(result.content).toBe("long output");
    const human = new HumanMessage("not a result");
    expect(mapToolResults(human, () => "x")).toBe(human);
    const thinking = new AIMessageChunk({
      content: [
        { type: "reasoning", reasoning: "hmm" },
        { type: "text", text: "answer" },
      ],
      id: "a1",
      tool_calls: [{ id: "c1", name: "grep", args: {}, type: "tool_call" }],
    });
    const cleared = removeReasoning(thinking);
    expect(AIMessageChunk.isInstance(cleared)).toBe(true);
    expect(cleared.content).toEqual([{ type: "text", text: "answer" }]);
    expect(cleared.id).toBe("a1");
    expect(cleared.tool_calls?.map((c) => c.id)).toEqual(["c1"]);
  });

  it("are rejected with a coded error naming the message when they are not sent to a model, or malformed", () => {
    expect(() => counter.countMessages([new HumanMessage("a"), new RemoveMessage({ id: "m1" })])).toThrow(
      expect.objectContaining({
        name: "TypeError",
        code: "ERR_CTXWIN_INVALID_ARGUMENT",
        message: expect.stringMatching(/^messages\[1\] is a LangChain message of type "remove"/),
      }),
    );
    const bad = new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "grep", args: { n: 1n } as never, type: "tool_call" }] });
    expect(() => counter.countMessages([bad])).toThrow(
      expect.objectContaining({
        code: "ERR_CTXWIN_INVALID_ARGUMENT",
        message: expect.stringMatching(/^messages\[0\]\.tool_calls\[0\]\.args\.n must be a JSON value/),
      }),
    );
    const context = new MessageContextManager<MessageLike>({ model: "gpt-4o" });
    expect(() => context.addMessage(new ToolMessage({ content: "x", tool_call_id: "nope" }))).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_ORPHAN_TOOL_RESULT" }),
    );
    expect(context.getMessages()).toEqual([]);
  });

  it("a summary never takes a SystemMessage, which has no role field, just as it never takes a system message", async () => {
    const system = new SystemMessage("You are a billing agent. Never refund twice.");
    const messages: BaseMessage[] = [system];
    for (let i = 0; i < 30; i++)
      messages.push(new HumanMessage(`question ${i} about invoice ${i}`), new AIMessage(`answer ${i}: `.repeat(20)));
    const compactor = new ContextCompactor({ model: async () => "The user asked about invoices.", keepUserTokens: 0 });
    const out = await compactor.compact(messages, 300, counter, { preserveLast: 4 });
    expect(out.length).toBeLessThan(messages.length);
    expect(out).toContain(system);
  });
});

describe("a provider's own tools in LangChain messages", () => {
  const page = "ctxwin keeps an agent's conversation inside its model's context window. ".repeat(10);
  // What ChatAnthropic returns after a web search: Anthropic's blocks, none of them in tool_calls.
  const anthropicNative = () =>
    new AIMessage({
      content: [
        { type: "text", text: "Let me search." },
        { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "ctxwin" } },
        {
          type: "web_search_tool_result",
          tool_use_id: "srvtoolu_1",
          content: [{ type: "web_search_result", url: "https://example.com", title: "ctxwin", encrypted_content: page }],
        },
        { type: "text", text: "Found it." },
      ],
    });
  // LangChain's standard blocks for the same.
  const standard = () =>
    new AIMessage({
      content: [
        { type: "server_tool_call", id: "st_1", name: "web_search", args: { query: "ctxwin" } },
        { type: "server_tool_call_result", toolCallId: "st_1", status: "success", output: { text: page } },
        { type: "text", text: "Found it." },
      ],
    });

  it.each([
    ["Anthropic's blocks", anthropicNative],
    ["LangChain's standard blocks", standard],
  ])("%s: the call and its result in the one message are added, counted and trimmed as one", async (_name, make) => {
    const history: BaseMessage[] = [
      new HumanMessage("What is ctxwin?"),
      make(),
      new HumanMessage("Thanks."),
      new AIMessage("You're welcome."),
    ];
    const context = new MessageContextManager({ model: "gpt-4o", counter });
    for (const m of history) context.addMessage(m);
    expect(context.getMessages()).toEqual(history);
    expect(counter.countMessages(history)).toBeGreaterThan(counter.count(page));
    const { trimMessages } = await import("ctxwin/langchain");
    const kept = await trimMessages(history, {
      maxTokens: counter.countMessages(history.slice(2)) + 5,
      tokenCounter: counter,
      strategy: "last",
    });
    expect(kept).toEqual(history.slice(2));
  });
});
