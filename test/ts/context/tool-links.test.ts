// A message whose tool call or result has no id cannot join its exchange: every door of a managed
// history refuses it with a coded TypeError naming the message, and the manager stays as it was
// (issue 36: a tool message without tool_call_id was taken in as valid, and the manager changed).
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { MemorySessionStore, MessageContextManager, type MessageLike } from "ctxwin";
import { SessionChatMessageHistory } from "ctxwin/langchain-history";

const quiet = { warn: () => {}, info: () => {}, error: () => {}, debug: () => {} };

/** Each malformed message, with the field its error names. */
const MALFORMED: Array<[string, MessageLike, string]> = [
  ["an OpenAI tool message without tool_call_id", { role: "tool", content: "42" }, "tool_call_id"],
  ["a tool message whose parts hold no result", { role: "tool", content: [{ type: "text", text: "42" }] }, "tool_call_id"],
  [
    "an AI SDK tool-result part without toolCallId",
    { role: "tool", content: [{ type: "tool-result", toolName: "f", output: { type: "text", value: "42" } }] },
    "content[0].toolCallId",
  ],
  [
    "an AI SDK tool-call part without toolCallId",
    { role: "assistant", content: [{ type: "tool-call", toolName: "f", input: {} }] },
    "content[0].toolCallId",
  ],
  [
    "an OpenAI tool call without id",
    { role: "assistant", content: null, tool_calls: [{ type: "function", function: { name: "f", arguments: "{}" } }] },
    "tool_calls[0].id",
  ],
  [
    "an Anthropic tool_result block without tool_use_id",
    { role: "user", content: [{ type: "tool_result", content: "42" }] },
    "content[0].tool_use_id",
  ],
  ["an Anthropic tool_use block without id", { role: "assistant", content: [{ type: "tool_use", name: "f", input: {} }] }, "content[0].id"],
];

const start = (): MessageContextManager => {
  const manager = new MessageContextManager({ model: "gpt-4o", logger: quiet });
  manager.setSystemPrompt("You are terse.");
  manager.addMessage({ role: "user", content: "What is 6 x 7?" });
  manager.addMessage({
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
  });
  manager.addMessage({ role: "tool", tool_call_id: "c1", content: "42" });
  return manager;
};

/** What a caller can see of a manager: unchanged means all of it equal. */
const seen = (manager: MessageContextManager) => {
  const { updatedAt: _u, ...exported } = manager.export() as unknown as Record<string, unknown>;
  return { messages: manager.getMessages(), usage: manager.tokenUsage, stats: manager.getStats(), exported };
};

const refusal = (index: number, field: string) =>
  expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT", message: expect.stringContaining(`messages[${index}].${field} must be`) });

describe.each(MALFORMED)("%s", (_name, bad, field) => {
  it("is refused by addMessage and canAdd, naming its index; the manager is unchanged", () => {
    const manager = start();
    const before = seen(manager);
    expect(() => manager.addMessage(bad)).toThrow(refusal(3, field));
    expect(() => manager.canAdd(bad)).toThrow(refusal(3, field));
    expect(seen(manager)).toEqual(before);
    expect(() => manager.addMessage(bad)).toThrow(TypeError);
  });

  it("is refused by load, by import and by fromExport; nothing changes", () => {
    const manager = start();
    const before = seen(manager);
    const history = [{ role: "user", content: "hi" }, bad];
    expect(() => manager.load(history)).toThrow(refusal(1, field));
    expect(seen(manager)).toEqual(before);
    const exported = start().export();
    const corrupt = { ...exported, turns: [...exported.turns, bad] };
    // An export is checked as a file first (its own code), or else as the messages it holds.
    expect(() => manager.import(corrupt)).toThrow(TypeError);
    expect(seen(manager)).toEqual(before);
    expect(() => MessageContextManager.fromExport(corrupt, { logger: quiet })).toThrow(TypeError);
  });
});

describe("a session's log", () => {
  it("never takes in a malformed message: the manager's append refuses it before the log does", async () => {
    const store = new MemorySessionStore();
    const manager = new MessageContextManager({ model: "gpt-4o", logger: quiet, session: { store, id: "s1" } });
    await manager.ready;
    manager.addMessage({ role: "user", content: "hi" });
    expect(() => manager.addMessage({ role: "tool", content: "42" })).toThrow(refusal(1, "tool_call_id"));
    await manager.flush();
    const again = new MessageContextManager({ model: "gpt-4o", logger: quiet, session: { store, id: "s1" } });
    await again.ready;
    expect(again.getMessages()).toEqual([{ role: "user", content: "hi" }]);
  });

  it("SessionChatMessageHistory refuses a ToolMessage without tool_call_id, appending nothing", async () => {
    const store = new MemorySessionStore();
    const history = new SessionChatMessageHistory({ store, id: "lc" });
    await history.addMessages([new HumanMessage("hi")]);
    const orphan = new ToolMessage({ content: "42" } as unknown as ConstructorParameters<typeof ToolMessage>[0]);
    await expect(history.addMessages([new AIMessage("ok"), orphan])).rejects.toThrow(refusal(1, "tool_call_id"));
    expect((await history.getMessages()).map((m) => m.content)).toEqual(["hi"]);
    // A manager opening the session reads it whole.
    const manager = new MessageContextManager({ model: "gpt-4o", logger: quiet, session: { store, id: "lc" } });
    await manager.ready;
    expect(manager.getMessages()).toEqual([{ role: "user", content: "hi" }]);
  });

  it("LangChain messages with their ids go in as before", () => {
    const manager = new MessageContextManager({ model: "gpt-4o", logger: quiet });
    manager.load([
      new HumanMessage("read a.ts"),
      new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "read", args: {} }] }),
      new ToolMessage({ tool_call_id: "call_1", content: "export const a = 1;" }),
    ] as unknown as MessageLike[]);
    expect(manager.getMessages()).toHaveLength(3);
    expect(() => manager.addMessage(new ToolMessage({ content: "x" } as never) as unknown as MessageLike)).toThrow(
      refusal(3, "tool_call_id"),
    );
  });
});
