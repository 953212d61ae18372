// What the manager writes itself (the omission marker, a summary, the system prompt in a request)
// comes back in the history's own shape: a MessageContextManager<BaseMessage> hands LangChain
// messages to LangChain (issue 36: a plain `{ role: "system" }` marker stood in mid-history).
import { AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { describe, expect, it } from "vitest";
import { ContextLimits, MessageContextManager, TruncationMode, extractiveSummarizer, type MessageLike } from "ctxwin";

const quiet = { warn: () => {}, info: () => {}, error: () => {}, debug: () => {} };
const limits = (maxTokens: number) => new ContextLimits({ model: "gpt-4o", maxTokens, maxOutputTokens: 0, reservedTokens: 0 });

/** A LangChain conversation of tool turns, each ~`size` words of result. */
function conversation(turns: number, size = 60): BaseMessage[] {
  const out: BaseMessage[] = [new HumanMessage("Fix the failing date tests in src/dates.ts.")];
  for (let i = 0; i < turns; i++) {
    out.push(new AIMessage({ content: "", tool_calls: [{ id: `call_${i}`, name: "read_file", args: { path: `src/m${i}.ts` } }] }));
    out.push(new ToolMessage({ tool_call_id: `call_${i}`, content: `export const v${i} = ${i};\n`.repeat(size) }));
    out.push(new AIMessage(`Read src/m${i}.ts.`));
  }
  return out;
}

describe("MessageContextManager<BaseMessage>", () => {
  it("a trim's omission marker is a LangChain message, and so is the system prompt", () => {
    const manager = new MessageContextManager<BaseMessage>({ model: "gpt-4o", limits: limits(3000), logger: quiet });
    manager.setSystemPrompt("You are terse.");
    for (const message of conversation(30)) manager.addMessage(message);
    const request = manager.getContextForRequest();
    const marker = request.find((m) => /^\[\d+ messages omitted/.test(String((m as { content?: unknown }).content)));
    expect(marker, "the history was trimmed with a marker").toBeDefined();
    for (const message of request) expect(message).toBeInstanceOf(BaseMessage);
    expect(request[0]).toBeInstanceOf(SystemMessage);
    expect((request[0] as BaseMessage).content).toBe("You are terse.");
    expect(["system", "human", "ai"]).toContain((marker as BaseMessage).getType());
    // The marker keeps the text (and the ids to recall by) the plain form has.
    expect((marker as BaseMessage).text).toMatch(/messages omitted; recall by id:\nrecall\("/);
    // What the manager exports is the plain marker turn, as before.
    const turn = manager.export().turns.find((t) => /messages omitted/.test(String((t as { content?: unknown }).content)));
    expect(turn).toMatchObject({ role: expect.any(String), content: (marker as BaseMessage).content });
  });

  it("a summary is a LangChain message in getMessages() and in the request", async () => {
    const manager = new MessageContextManager<BaseMessage>({
      model: "gpt-4o",
      mode: TruncationMode.SUMMARIZE,
      limits: limits(20000),
      logger: quiet,
      compaction: { summarizer: extractiveSummarizer(), preserveLast: 4 },
    });
    for (let i = 0; i < 40; i++)
      manager.addMessage(
        i % 2
          ? new AIMessage(`Answer ${i}: the parser in src/p${i}.ts handles dates. `.repeat(8))
          : new HumanMessage(`Question ${i}: what does src/p${i}.ts do? `.repeat(8)),
      );
    const report = await manager.compactIfNeeded({ threshold: 0.1 });
    expect(report.levels.find((l) => l.name === "summarize")?.applied).toBe(true);
    const messages = manager.getMessages();
    const summary = messages.find((m) => m.text.startsWith("Summary of the"));
    expect(summary).toBeInstanceOf(HumanMessage); // summaryRole "user" by default
    for (const message of [...messages, ...manager.getContextForRequest()]) expect(message).toBeInstanceOf(BaseMessage);
    expect(manager.getContextForRequest()).toContainEqual(summary);
  });

  it("the request goes through a LangChain chat model as it is", async () => {
    const manager = new MessageContextManager<BaseMessage>({ model: "gpt-4o", limits: limits(3000), logger: quiet });
    manager.setSystemPrompt("You are terse.");
    for (const message of conversation(30)) manager.addMessage(message);
    const model = new FakeListChatModel({ responses: ["done"] });
    const request = manager.getContextForRequest() as BaseMessage[];
    const reply = await model.invoke(request);
    expect(reply.content).toBe("done");
  });

  it("createMessage builds them in any other shape; a bad one is a coded TypeError", () => {
    type Tagged = MessageLike & { tag?: string };
    const manager = new MessageContextManager<Tagged>({
      model: "gpt-4o",
      limits: limits(3000),
      logger: quiet,
      createMessage: ({ role, content }) => ({ role, content, tag: "ctxwin" }),
    });
    manager.setSystemPrompt("You are terse.");
    for (const message of conversation(30)) manager.addMessage(message as unknown as Tagged);
    const inserted = manager.getContextForRequest().filter((m) => (m as Tagged).tag === "ctxwin");
    expect(inserted.map((m) => m.role)).toEqual(["system", expect.any(String)]);
    expect(() => new MessageContextManager({ model: "gpt-4o", createMessage: "system" as never })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT", message: expect.stringContaining("options.createMessage") }),
    );
  });

  it("a plain history gets the plain form, as before", () => {
    const manager = new MessageContextManager({ model: "gpt-4o", limits: limits(3000), logger: quiet });
    for (let i = 0; i < 60; i++) manager.addMessage({ role: i % 2 ? "assistant" : "user", content: `turn ${i} `.repeat(40) });
    const request = manager.getContextForRequest();
    const marker = request.find((m) => /messages omitted/.test(String(m.content)));
    expect(marker).toEqual({ role: expect.any(String), content: expect.stringMatching(/^\[\d+ messages omitted/) });
    expect(Object.getPrototypeOf(marker)).toBe(Object.prototype);
  });
});
