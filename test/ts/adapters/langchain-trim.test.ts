// trimMessages from ctxwin/langchain as a user of @langchain/core's calls it: the same options, the
// caller's own messages back, the Runnable form, and the one deliberate difference (a tool call is
// never parted from its results) shown on the case where LangChain parts them.
import { describe, expect, it } from "vitest";
import {
  AIMessage,
  AIMessageChunk,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  trimMessages as langchainTrim,
  type BaseMessage,
} from "@langchain/core/messages";
import { getCounter } from "ctxwin";
import { trimMessages } from "ctxwin/langchain";

const counter = getCounter("gpt-4o");
const count = (messages: BaseMessage[]) => counter.countMessages(messages);

function conversation(): BaseMessage[] {
  return [
    new SystemMessage("You fix bugs."),
    new HumanMessage("Fix the failing test."),
    new AIMessage({
      content: "",
      tool_calls: [
        { id: "a", name: "read", args: { path: "x.ts" }, type: "tool_call" },
        { id: "b", name: "read", args: { path: "y.ts" }, type: "tool_call" },
      ],
    }),
    new ToolMessage({ content: "x ".repeat(60), tool_call_id: "a" }),
    new ToolMessage({ content: "y ".repeat(60), tool_call_id: "b" }),
    new AIMessage("Fixed."),
  ];
}

describe("trimMessages", () => {
  it("keeps the caller's own messages, with the system message and the last turns that fit", async () => {
    const messages = conversation();
    const kept = await trimMessages(messages, {
      maxTokens: count([messages[0] as BaseMessage, ...messages.slice(2)]),
      tokenCounter: counter,
      includeSystem: true,
    });
    expect(kept).toEqual([messages[0], ...messages.slice(2)]);
    kept.forEach((m, i) => expect(m).toBe(i === 0 ? messages[0] : messages[i + 1]));
  });

  it("drops a tool call's results with it where LangChain keeps a result whose call it dropped", async () => {
    const messages = conversation();
    // Room for the last result and the answer, not for the call and both results.
    const maxTokens = count(messages.slice(4));
    const theirs = await langchainTrim(conversation(), { maxTokens, tokenCounter: count, strategy: "last" });
    expect(theirs.map((m) => m.getType())).toEqual(["tool", "ai"]); // an orphaned result: providers reject it
    const ours = await trimMessages(messages, { maxTokens, tokenCounter: counter, strategy: "last" });
    expect(ours).toEqual([messages[5]]);
    // strategy "first" never keeps a call without all of its results either.
    const first = await trimMessages(messages, { maxTokens: count(messages.slice(0, 4)), tokenCounter: counter, strategy: "first" });
    expect(first).toEqual(messages.slice(0, 2));
  });

  it("cuts the edge message with allowPartial, into a new message of the caller's class", async () => {
    const long = new AIMessageChunk({ content: "one\ntwo\nthree\nfour\n", id: "m1" });
    const messages = [new HumanMessage("a question that does not fit beside it"), long];
    const maxTokens = count([new AIMessage("three\nfour\n")]);
    const kept = await trimMessages(messages, { maxTokens, tokenCounter: counter, allowPartial: true });
    expect(kept).toHaveLength(1);
    const cut = kept[0];
    expect(AIMessageChunk.isInstance(cut)).toBe(true);
    expect(cut?.content).toBe("three\nfour\n");
    expect(cut?.id).toBe("m1");
    expect(long.content).toBe("one\ntwo\nthree\nfour\n"); // the caller's message is not written to
    const blocks = new HumanMessage({
      content: [
        { type: "text", text: "a" },
        { type: "text", text: "b" },
        { type: "text", text: "c" },
      ],
    });
    const firstBlocks = await trimMessages([blocks], {
      maxTokens: count([
        new HumanMessage({
          content: [
            { type: "text", text: "a" },
            { type: "text", text: "b" },
          ],
        }),
      ]),
      tokenCounter: counter,
      strategy: "first",
      allowPartial: true,
    });
    expect(firstBlocks.map((m) => m.content)).toEqual([
      [
        { type: "text", text: "a" },
        { type: "text", text: "b" },
      ],
    ]);
  });

  it("takes startOn / endOn as types or classes, a counting function, and a chat model's getNumTokens", async () => {
    const messages = conversation();
    const everything = count(messages);
    expect(
      await trimMessages(messages, { maxTokens: everything, tokenCounter: count, startOn: HumanMessage, endOn: ["human", ToolMessage] }),
    ).toEqual(messages.slice(1, 5));
    const model = { getNumTokens: async (content: unknown) => JSON.stringify(content).length };
    const byModel = await trimMessages(messages, { maxTokens: 20, tokenCounter: model });
    expect(byModel).toEqual([messages[5]]);
    expect(await trimMessages(messages, { maxTokens: 20, tokenCounter: model, strategy: "first" })).toEqual([messages[0]]);
  });

  it("is a Runnable when called with the options alone, as LangChain's is", async () => {
    const trimmer = trimMessages({ maxTokens: 10, tokenCounter: counter, strategy: "last" });
    const messages = [new HumanMessage("first question"), new HumanMessage("second")];
    expect(await trimmer.invoke(messages)).toEqual([messages[1]]);
  });

  it("rejects bad options with a coded error naming the option, as LangChain rejects its combinations", async () => {
    const messages = conversation();
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ maxTokens: -1 }, "RangeError", "options.maxTokens must be a number >= 0"],
      [{ maxTokens: 10, strategy: "middle" }, "RangeError", 'options.strategy must be "first" or "last"'],
      [{ maxTokens: 10, strategy: "first", startOn: "human" }, "RangeError", 'options.startOn applies to strategy "last" only'],
      [{ maxTokens: 10, strategy: "first", includeSystem: true }, "RangeError", 'options.includeSystem applies to strategy "last" only'],
      [{ maxTokens: 10, allowPartial: "yes" }, "TypeError", "options.allowPartial must be a boolean"],
      [{ maxTokens: 10, tokenCounter: 5 }, "TypeError", "options.tokenCounter must be a ctxwin TokenCounter"],
      [{ maxTokens: 10, endOn: [42] }, "TypeError", "options.endOn[0] must be a message type or a message class"],
      [{ maxTokens: 10, tokenCounter: () => Number.NaN }, "RangeError", "options.tokenCounter must count a number >= 0"],
    ];
    for (const [options, name, message] of cases) {
      const error = await trimMessages(messages, { tokenCounter: counter, ...options } as never).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({
        name,
        code: name === "TypeError" ? "ERR_CTXWIN_INVALID_ARGUMENT" : "ERR_CTXWIN_OUT_OF_RANGE",
        message: expect.stringContaining(message),
      });
    }
    expect(messages).toEqual(conversation());
  });
});
