// `ctxwin/langchain-history`: LangChain's BaseListChatMessageHistory over the session stores, and
// the same session read by a MessageContextManager (and the other way round).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { BaseListChatMessageHistory } from "@langchain/core/chat_history";
import { RunnableLambda, RunnableWithMessageHistory } from "@langchain/core/runnables";
import type { BaseMessage } from "@langchain/core/messages";
import { afterAll, describe, expect, it } from "vitest";
import { FileSessionStore, MemorySessionStore, MessageContextManager, type SessionStore } from "ctxwin";
import { SessionChatMessageHistory } from "ctxwin/langchain-history";

const directory = mkdtempSync(join(tmpdir(), "ctxwin-lc-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const conversation = () => [
  new SystemMessage("You are terse."),
  new HumanMessage("What is in src/a.ts?"),
  new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "read_file", args: { path: "src/a.ts" } }] }),
  new ToolMessage({ tool_call_id: "call_1", content: "export const a = 1;" }),
  new AIMessage("It exports a = 1."),
];

describe.each([
  ["memory", () => new MemorySessionStore()],
  ["file", () => new FileSessionStore({ directory })],
] as Array<[string, () => SessionStore]>)("SessionChatMessageHistory on the %s store", (name, makeStore) => {
  it("is a BaseListChatMessageHistory that stores and returns LangChain messages exactly", async () => {
    const history = new SessionChatMessageHistory({ store: makeStore(), id: `lc-${name}` });
    expect(history).toBeInstanceOf(BaseListChatMessageHistory);
    await history.addMessages(conversation());
    await history.addUserMessage("thanks");
    const messages = await history.getMessages();
    expect(messages.map((m) => m.toDict())).toEqual([...conversation(), new HumanMessage("thanks")].map((m) => m.toDict()));
    expect((messages[2] as AIMessage).tool_calls).toEqual([
      expect.objectContaining({ id: "call_1", name: "read_file", args: { path: "src/a.ts" } }),
    ]);
  });

  it("clear() is a boundary: the history reads empty, the log keeps every message", async () => {
    const store = makeStore();
    const history = new SessionChatMessageHistory({ store, id: `clear-${name}` });
    await history.addMessages(conversation());
    await history.clear();
    expect(await history.getMessages()).toEqual([]);
    await history.addAIMessage("fresh start");
    expect((await history.getMessages()).map((m) => m.content)).toEqual(["fresh start"]);
    expect((await store.read(`clear-${name}`)).filter((r) => r.entry.type === "message")).toHaveLength(6);
  });

  it("shares the session with a MessageContextManager both ways", async () => {
    const store = makeStore();
    const id = `shared-${name}`;
    const history = new SessionChatMessageHistory({ store, id });
    await history.addMessages(conversation());
    const cm = await MessageContextManager.open({ model: "gpt-4o", session: { store, id } });
    expect(cm.getMessages()).toEqual([
      { role: "system", content: "You are terse." },
      { role: "user", content: "What is in src/a.ts?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"src/a.ts"}' } }],
      },
      { role: "tool", content: "export const a = 1;", tool_call_id: "call_1" },
      { role: "assistant", content: "It exports a = 1." },
    ]);
    cm.addMessage({ role: "user", content: "And b?" });
    await cm.flush();
    const after = await history.getMessages();
    expect(after).toHaveLength(6);
    expect(after[5]).toBeInstanceOf(HumanMessage);
    expect(after[5]!.content).toBe("And b?");
  });
});

it("keeps RunnableWithMessageHistory's conversation across calls (and across store instances)", async () => {
  const model = RunnableLambda.from(
    async (input: { question: string; history?: BaseMessage[] }) =>
      new AIMessage(`answer ${(input.history?.length ?? 0) / 2 + 1} to ${input.question}`),
  );
  const chain = () =>
    new RunnableWithMessageHistory({
      runnable: model,
      // A new store object per call, as a new worker would have: only the directory is shared.
      getMessageHistory: (sessionId: string) =>
        new SessionChatMessageHistory({ store: new FileSessionStore({ directory }), id: sessionId }),
      inputMessagesKey: "question",
      historyMessagesKey: "history",
    });
  const config = { configurable: { sessionId: "runnable" } };
  expect((await chain().invoke({ question: "first?" }, config)).content).toBe("answer 1 to first?");
  expect((await chain().invoke({ question: "second?" }, config)).content).toBe("answer 2 to second?");
  const messages = await new SessionChatMessageHistory({ store: new FileSessionStore({ directory }), id: "runnable" }).getMessages();
  expect(messages.map((m) => [m.getType(), m.content])).toEqual([
    ["human", "first?"],
    ["ai", "answer 1 to first?"],
    ["human", "second?"],
    ["ai", "answer 2 to second?"],
  ]);
});

it("rejects a missing store with a coded error", () => {
  expect(() => new SessionChatMessageHistory({ id: "x" } as never)).toThrow(
    expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT" }),
  );
});
