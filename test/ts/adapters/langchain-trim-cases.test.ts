// LangChain's own trimMessages cases, run against ctxwin's trimMessages. @langchain/core does not
// ship its tests, so each case is written here from the upstream test it is named after:
// langchain-ai/langchainjs libs/langchain-core/src/messages/tests/message_utils.test.ts
// ("trimMessages can trim") and langchain-ai/langchain libs/core/tests/unit_tests/messages/
// test_utils.py (test_trim_messages_*), same messages, counters, options and expected results.
// Where the two upstreams disagree (a "last" cut of a multi-block message keeps its last blocks in
// Python, its first in JS) ctxwin keeps Python's, as docs/frameworks.md says; the Python-only
// `token_counter="approximate"` shortcut has no JS counterpart and is not ported. Then the
// property every one of those cases asserts on the side: the caller's messages are never written to.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AIMessage,
  AIMessageChunk,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
  type MessageContent,
} from "@langchain/core/messages";
import { getCounter } from "ctxwin";
import { trimMessages } from "ctxwin/langchain";

/** Upstream's dummy counter: 3 + 4 per content block (4 for a string) + 3 per message. */
const dummyTokenCounter = (messages: BaseMessage[]): number =>
  messages.reduce((sum, m) => sum + 3 + (Array.isArray(m.content) ? m.content.length * 4 : 4) + 3, 0);

/** A deep picture of a message: every own field, its lc_kwargs and its content's identity. */
function picture(message: BaseMessage): unknown {
  return {
    entries: JSON.stringify(Object.entries(message)),
    kwargs: JSON.stringify(message.lc_kwargs),
    content: message.content,
    blocks: Array.isArray(message.content) ? [...message.content] : undefined,
  };
}
function pictures(messages: readonly BaseMessage[]): unknown[] {
  return messages.map(picture);
}

describe("langchainjs message_utils.test.ts: trimMessages can trim", () => {
  const TEXT = "This is a 4 token text. The full message is 10 tokens.";
  const messages = () => [
    new SystemMessage(TEXT),
    new HumanMessage({ content: TEXT, id: "first" }),
    new AIMessage({
      content: [
        { type: "text", text: "This is the FIRST 4 token block." },
        { type: "text", text: "This is the SECOND 4 token block." },
      ],
      id: "second",
    }),
    new HumanMessage({ content: TEXT, id: "third" }),
    new AIMessage({ content: TEXT, id: "fourth" }),
  ];

  it("should not mutate messages", async () => {
    const input = [
      new HumanMessage({ content: "My name is Jane Doe.\n          this is a long text\n          ", id: "a" }),
      new HumanMessage({
        content:
          "My name is Jane Doe.feiowfjoaejfioewaijof ewoif ioawej foiaew iofewi ao\n          this is a longer text than the first text.\n          ",
        id: "b",
      }),
    ];
    const repr = JSON.stringify(input);
    await trimMessages(input, { maxTokens: 14, strategy: "last", tokenCounter: () => 100, allowPartial: true });
    expect(JSON.stringify(input)).toBe(repr);
  });

  it("should not mutate messages if no trimming occurs with strategy last", async () => {
    const trimmer = trimMessages({
      maxTokens: 128000,
      strategy: "last",
      startOn: [HumanMessage],
      endOn: [AIMessage, ToolMessage],
      tokenCounter: () => 1,
    });
    const args = { inboxName: "flora@foo.org", amount: 5, folder: "Inbox", searchString: null, from: null, subject: null };
    const input = [
      new HumanMessage({ content: "Fetch the last 5 emails from Flora Testington's inbox.", additional_kwargs: {}, response_metadata: {} }),
      new AIMessageChunk({
        id: "chatcmpl-abcdefg",
        content: "",
        additional_kwargs: {
          tool_calls: [{ function: { name: "getEmails", arguments: JSON.stringify(args) }, id: "foobarbaz", index: 0, type: "function" }],
        },
        response_metadata: { usage: {} },
        tool_calls: [{ name: "getEmails", args, id: "foobarbaz", type: "tool_call" }],
        tool_call_chunks: [
          { name: "getEmails", args: JSON.stringify({ ...args, cc: [], bcc: [] }), id: "foobarbaz", type: "tool_call_chunk" },
        ],
        invalid_tool_calls: [],
      }),
      new ToolMessage({
        content: "a whole bunch of emails!",
        name: "getEmails",
        additional_kwargs: {},
        response_metadata: {},
        tool_call_id: "foobarbaz",
      }),
    ];
    expect(await trimmer.invoke(input)).toEqual(input);
  });

  it("First 30 tokens, not allowing partial messages", async () => {
    const input = messages();
    expect(await trimMessages(input, { maxTokens: 30, tokenCounter: dummyTokenCounter, strategy: "first" })).toEqual(input.slice(0, 2));
  });

  it("First 30 tokens, allowing partial messages", async () => {
    const input = messages();
    const trimmed = await trimMessages(input, { maxTokens: 30, tokenCounter: dummyTokenCounter, strategy: "first", allowPartial: true });
    expect(trimmed).toEqual([
      ...input.slice(0, 2),
      new AIMessage({ content: [{ type: "text", text: "This is the FIRST 4 token block." }], id: "second" }),
    ]);
  });

  it("First 30 tokens, allowing partial messages, have to end on HumanMessage", async () => {
    const input = messages();
    expect(
      await trimMessages(input, { maxTokens: 30, tokenCounter: dummyTokenCounter, strategy: "first", allowPartial: true, endOn: "human" }),
    ).toEqual(input.slice(0, 2));
  });

  it("First tokens, allowing partial messages, have to trim the last 10 characters of the last message", async () => {
    const input = messages();
    // Upstream's counter for this case: content.length (characters of a string, blocks of an array).
    const chars = (list: BaseMessage[]) => list.reduce((sum, m) => sum + m.content.length, 0);
    const total = chars(input);
    const trimmed = await trimMessages(input, {
      maxTokens: total - 10,
      tokenCounter: chars,
      strategy: "first",
      allowPartial: true,
      textSplitter: (text: string) => text.split(""),
    });
    expect(trimmed.map((m) => m.content)).toEqual([TEXT, TEXT, input[2]!.content, TEXT, "This is a 4 token text. The full message is "]);
  });

  it("Last 30 tokens, including system message, not allowing partial messages", async () => {
    const input = messages();
    expect(await trimMessages(input, { maxTokens: 30, includeSystem: true, tokenCounter: dummyTokenCounter, strategy: "last" })).toEqual([
      input[0],
      input[3],
      input[4],
    ]);
  });

  it("Last 40 tokens, including system message, allowing partial messages (the last block kept, as in Python: upstream JS expects the first)", async () => {
    const input = messages();
    const trimmed = await trimMessages(input, {
      maxTokens: 40,
      tokenCounter: dummyTokenCounter,
      strategy: "last",
      allowPartial: true,
      includeSystem: true,
    });
    expect(trimmed).toEqual([
      input[0],
      new AIMessage({ content: [{ type: "text", text: "This is the SECOND 4 token block." }], id: "second" }),
      input[3],
      input[4],
    ]);
  });

  it("Last 30 tokens, including system message, allowing partial messages, end on HumanMessage (the last block, as in Python)", async () => {
    const input = messages();
    const trimmed = await trimMessages(input, {
      maxTokens: 30,
      tokenCounter: dummyTokenCounter,
      strategy: "last",
      endOn: "human",
      includeSystem: true,
      allowPartial: true,
    });
    expect(trimmed).toEqual([
      input[0],
      new AIMessage({ content: [{ type: "text", text: "This is the SECOND 4 token block." }], id: "second" }),
      input[3],
    ]);
  });

  it("Last 40 tokens, including system message, allowing partial messages, start on HumanMessage", async () => {
    const input = messages();
    expect(
      await trimMessages(input, {
        maxTokens: 40,
        tokenCounter: dummyTokenCounter,
        strategy: "last",
        includeSystem: true,
        allowPartial: true,
        startOn: "human",
      }),
    ).toEqual([input[0], input[3], input[4]]);
  });

  it("can filter (startOn) with message classes", async () => {
    const input = messages();
    expect(await trimMessages(input, { maxTokens: 40, tokenCounter: dummyTokenCounter, startOn: [HumanMessage] })).toEqual([
      input[3],
      input[4],
    ]);
  });

  it("can filter (endOn) with message classes", async () => {
    const input = messages();
    expect(await trimMessages(input, { maxTokens: 40, tokenCounter: dummyTokenCounter, endOn: [HumanMessage] })).toEqual([
      input[1],
      input[2],
      input[3],
    ]);
  });

  it("can return a runnable if empty array is passed", () => {
    const trimmer = trimMessages({ maxTokens: 40, tokenCounter: dummyTokenCounter });
    expect(trimmer.lc_namespace).toEqual(["langchain_core", "runnables"]);
    expect(typeof trimmer.invoke).toBe("function");
  });
});

describe("langchain test_utils.py: test_trim_messages_*", () => {
  const TEXT = "This is a 4 token text.";
  const make = () => [
    new SystemMessage(TEXT),
    new HumanMessage({ content: TEXT, id: "first" }),
    new AIMessage({
      content: [
        { type: "text", text: "This is the FIRST 4 token block." },
        { type: "text", text: "This is the SECOND 4 token block." },
      ],
      id: "second",
    }),
    new HumanMessage({ content: TEXT, id: "third" }),
    new AIMessage({ content: TEXT, id: "fourth" }),
  ];
  // One list for every case, as upstream's _MESSAGES_TO_TRIM: a case that wrote into it would fail the ones after it.
  const MESSAGES_TO_TRIM = make();
  const COPY = pictures(MESSAGES_TO_TRIM);
  const untouched = () => expect(pictures(MESSAGES_TO_TRIM)).toEqual(COPY);
  const charCount = (messages: BaseMessage[]) =>
    messages.reduce((sum, m) => sum + (typeof m.content === "string" ? m.content.length : 0), 0);

  it("test_trim_messages_first_30", async () => {
    expect(await trimMessages(MESSAGES_TO_TRIM, { maxTokens: 30, tokenCounter: dummyTokenCounter, strategy: "first" })).toEqual(
      make().slice(0, 2),
    );
    untouched();
  });

  it("test_trim_messages_first_30_allow_partial", async () => {
    const trimmed = await trimMessages(MESSAGES_TO_TRIM, {
      maxTokens: 30,
      tokenCounter: dummyTokenCounter,
      strategy: "first",
      allowPartial: true,
    });
    expect(trimmed).toEqual([
      ...make().slice(0, 2),
      new AIMessage({ content: [{ type: "text", text: "This is the FIRST 4 token block." }], id: "second" }),
    ]);
    untouched();
  });

  it("test_trim_messages_first_30_allow_partial_end_on_human", async () => {
    expect(
      await trimMessages(MESSAGES_TO_TRIM, {
        maxTokens: 30,
        tokenCounter: dummyTokenCounter,
        strategy: "first",
        allowPartial: true,
        endOn: "human",
      }),
    ).toEqual(make().slice(0, 2));
    untouched();
  });

  it("test_trim_messages_last_30_include_system", async () => {
    const [system, , , third, fourth] = make();
    expect(
      await trimMessages(MESSAGES_TO_TRIM, { maxTokens: 30, includeSystem: true, tokenCounter: dummyTokenCounter, strategy: "last" }),
    ).toEqual([system, third, fourth]);
    untouched();
  });

  it("test_trim_messages_last_40_include_system_allow_partial", async () => {
    const [system, , , third, fourth] = make();
    const trimmed = await trimMessages(MESSAGES_TO_TRIM, {
      maxTokens: 40,
      tokenCounter: dummyTokenCounter,
      strategy: "last",
      allowPartial: true,
      includeSystem: true,
    });
    expect(trimmed).toEqual([
      system,
      new AIMessage({ content: [{ type: "text", text: "This is the SECOND 4 token block." }], id: "second" }),
      third,
      fourth,
    ]);
    untouched();
  });

  it("test_trim_messages_last_30_include_system_allow_partial_end_on_human", async () => {
    const [system, , , third] = make();
    const trimmed = await trimMessages(MESSAGES_TO_TRIM, {
      maxTokens: 30,
      tokenCounter: dummyTokenCounter,
      strategy: "last",
      allowPartial: true,
      includeSystem: true,
      endOn: "human",
    });
    expect(trimmed).toEqual([
      system,
      new AIMessage({ content: [{ type: "text", text: "This is the SECOND 4 token block." }], id: "second" }),
      third,
    ]);
    untouched();
  });

  it("test_trim_messages_last_40_include_system_allow_partial_start_on_human (its max_tokens is 30)", async () => {
    const [system, , , third, fourth] = make();
    const trimmed = await trimMessages(MESSAGES_TO_TRIM, {
      maxTokens: 30,
      tokenCounter: dummyTokenCounter,
      strategy: "last",
      allowPartial: true,
      includeSystem: true,
      startOn: "human",
    });
    expect(trimmed).toEqual([system, third, fourth]);
    untouched();
  });

  it("test_trim_messages_allow_partial_one_message", async () => {
    const input = [new HumanMessage({ content: "This is a funky text.", id: "third" })];
    const trimmed = await trimMessages(input, {
      maxTokens: 2,
      tokenCounter: charCount,
      textSplitter: (t: string) => [...t],
      strategy: "first",
      allowPartial: true,
    });
    expect(trimmed).toEqual([new HumanMessage({ content: "Th", id: "third" })]);
  });

  it("test_trim_messages_last_allow_partial_one_message", async () => {
    const input = [new HumanMessage({ content: "This is a funky text.", id: "third" })];
    const trimmed = await trimMessages(input, {
      maxTokens: 2,
      tokenCounter: charCount,
      textSplitter: (t: string) => [...t],
      strategy: "last",
      allowPartial: true,
    });
    expect(trimmed).toEqual([new HumanMessage({ content: "t.", id: "third" })]);
  });

  it("test_trim_messages_allow_partial_text_splitter", async () => {
    const countWords = (messages: BaseMessage[]) =>
      messages.reduce(
        (sum, m) =>
          sum +
          (typeof m.content === "string" ? m.content : (m.content as Array<{ text: string }>).map((b) => b.text).join(" ")).split(" ")
            .length,
        0,
      );
    const splitOnSpace = (text: string) => {
      const splits = text.split(" ");
      return [...splits.slice(0, -1).map((s) => `${s} `), ...splits.slice(-1)];
    };
    const trimmed = await trimMessages(MESSAGES_TO_TRIM, {
      maxTokens: 10,
      tokenCounter: countWords,
      strategy: "last",
      allowPartial: true,
      textSplitter: splitOnSpace,
    });
    expect(trimmed).toEqual([new HumanMessage({ content: "a 4 token text.", id: "third" }), make()[4]]);
    untouched();
  });

  it("test_trim_messages_include_system_strategy_last_empty_messages", async () => {
    expect(
      await trimMessages({ maxTokens: 10, tokenCounter: dummyTokenCounter, strategy: "last", includeSystem: true }).invoke([]),
    ).toEqual([]);
  });

  it("test_trim_messages_invoke", async () => {
    const invoked = await trimMessages({ maxTokens: 10, tokenCounter: dummyTokenCounter }).invoke(MESSAGES_TO_TRIM);
    expect(invoked).toEqual(await trimMessages(MESSAGES_TO_TRIM, { maxTokens: 10, tokenCounter: dummyTokenCounter }));
  });

  it("test_trim_messages_bad_token_counter (a coded TypeError naming the option)", async () => {
    await expect(trimMessages({ maxTokens: 10, tokenCounter: {} as never }).invoke([new HumanMessage("foobar")])).rejects.toThrow(
      expect.objectContaining({
        name: "TypeError",
        code: "ERR_CTXWIN_INVALID_ARGUMENT",
        message: expect.stringMatching(/options\.tokenCounter must be/),
      }),
    );
  });

  it("test_trim_messages_partial_text_splitting", async () => {
    const input = [new HumanMessage({ content: "This is a long message that needs trimming" })];
    const copy = pictures(input);
    const trimmed = await trimMessages(input, {
      maxTokens: 10,
      tokenCounter: charCount,
      strategy: "first",
      allowPartial: true,
      textSplitter: (t: string) => [...t],
    });
    expect(trimmed).toHaveLength(1);
    expect(trimmed[0]!.content).toBe("This is a ");
    expect(pictures(input)).toEqual(copy);
  });

  it("test_trim_messages_mixed_content_with_partial", async () => {
    const input = [
      new AIMessage({
        content: [
          { type: "text", text: "First part of text." },
          { type: "text", text: "Second part that should be trimmed." },
        ],
      }),
    ];
    const copy = pictures(input);
    const textLength = (messages: BaseMessage[]) =>
      messages.reduce(
        (sum, m) =>
          sum +
          (Array.isArray(m.content)
            ? m.content.reduce((s, b) => s + (typeof b === "object" && b.type === "text" ? (b as { text: string }).text.length : 0), 0)
            : m.content.length),
        0,
      );
    const trimmed = await trimMessages(input, { maxTokens: 20, tokenCounter: textLength, strategy: "first", allowPartial: true });
    expect(trimmed).toHaveLength(1);
    expect(trimmed[0]!.content).toEqual([{ type: "text", text: "First part of text." }]);
    expect(pictures(input)).toEqual(copy);
  });

  it("test_trim_messages_exact_token_boundary", async () => {
    const input = [new SystemMessage({ content: "10 tokens exactly." }), new HumanMessage({ content: "Another 10 tokens." })];
    const one = await trimMessages(input, { maxTokens: 10, tokenCounter: dummyTokenCounter, strategy: "first" });
    expect(one.map((m) => m.content)).toEqual(["10 tokens exactly."]);
    expect(await trimMessages(input, { maxTokens: 20, tokenCounter: dummyTokenCounter, strategy: "first" })).toEqual(input);
  });

  it("test_trim_messages_start_on_with_allow_partial", async () => {
    const input = [
      new HumanMessage({ content: "First human message" }),
      new AIMessage({ content: "AI response" }),
      new HumanMessage({ content: "Second human message" }),
    ];
    const copy = pictures(input);
    const trimmed = await trimMessages(input, {
      maxTokens: 20,
      tokenCounter: dummyTokenCounter,
      strategy: "last",
      allowPartial: true,
      startOn: "human",
    });
    expect(trimmed.map((m) => m.content)).toEqual(["Second human message"]);
    expect(pictures(input)).toEqual(copy);
  });
});

describe("trimMessages never writes to the caller's messages", () => {
  const text = fc.oneof(
    fc.constantFrom("", "ok", "line one\nline two\nline three\n", "東京 naïve 🚀\nzweite Zeile"),
    fc.array(fc.string({ unit: "grapheme", maxLength: 20 }), { minLength: 1, maxLength: 5 }).map((lines) => lines.join("\n")),
  );
  const content = fc.oneof(
    text,
    fc.array(
      text.map((t) => ({ type: "text" as const, text: t })),
      { minLength: 1, maxLength: 4 },
    ),
  );
  type Turn =
    | { kind: "system" | "human" | "ai" | "chunk"; content: MessageContent }
    | { kind: "calls"; content: string; results: string[] };
  const turn: fc.Arbitrary<Turn> = fc.oneof(
    fc.record({ kind: fc.constantFrom("system" as const, "human" as const, "ai" as const, "chunk" as const), content }),
    fc.record({ kind: fc.constant("calls" as const), content: text, results: fc.array(text, { minLength: 1, maxLength: 3 }) }),
  );
  const build = (turns: Turn[]): BaseMessage[] =>
    turns.flatMap((t, i): BaseMessage[] => {
      if (t.kind !== "calls") {
        if (t.kind === "system") return [new SystemMessage({ content: t.content, id: `s${i}` })];
        if (t.kind === "human") return [new HumanMessage({ content: t.content, id: `h${i}`, additional_kwargs: { note: { turn: i } } })];
        if (t.kind === "ai") return [new AIMessage({ content: t.content, id: `a${i}`, response_metadata: { model: "m" } })];
        return [new AIMessageChunk({ content: t.content, id: `c${i}` })];
      }
      const calls = t.results.map((_, k) => ({ id: `call_${i}_${k}`, name: "read", args: { k }, type: "tool_call" as const }));
      return [
        new AIMessage({ content: t.content, tool_calls: calls }),
        ...t.results.map((r, k) => new ToolMessage({ content: r, tool_call_id: `call_${i}_${k}` })),
      ];
    });
  const gpt4o = getCounter("gpt-4o");
  const counters = [
    (list: BaseMessage[]) => gpt4o.countMessages(list),
    (list: BaseMessage[]) => list.reduce((sum, m) => sum + JSON.stringify(m.content).length, 0),
  ];
  const splitters = [undefined, (t: string) => [...t], (t: string) => t.split(/(?<= )/)];

  it("with allowPartial, whatever the strategy, options, counter and splitter", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { minLength: 1, maxLength: 8 }),
        fc.record({
          strategy: fc.constantFrom("first" as const, "last" as const),
          includeSystem: fc.boolean(),
          endOn: fc.option(fc.constantFrom("human", "ai"), { nil: undefined }),
          startOn: fc.option(fc.constantFrom("human", "ai"), { nil: undefined }),
        }),
        fc.nat(counters.length - 1),
        fc.nat(splitters.length - 1),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (turns, o, c, s, share) => {
          const messages = build(turns);
          const before = pictures(messages);
          const count = counters[c]!;
          const splitter = splitters[s];
          const trimmed = await trimMessages(messages, {
            maxTokens: Math.floor(count(messages) * share),
            tokenCounter: count,
            strategy: o.strategy,
            allowPartial: true,
            ...(o.strategy === "last"
              ? { includeSystem: o.includeSystem, ...(o.startOn !== undefined ? { startOn: o.startOn } : {}) }
              : {}),
            ...(o.endOn !== undefined ? { endOn: o.endOn } : {}),
            ...(splitter !== undefined ? { textSplitter: splitter } : {}),
          });
          expect(pictures(messages)).toEqual(before);
          // What comes back is the caller's objects and at most one new message (the cut).
          expect(trimmed.filter((m) => !messages.includes(m)).length).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 150 },
    );
  });
});
