// Every item type of the OpenAI Agents SDK (the members of its protocol.ModelItem
// schema, enumerated from the package, so that a type it adds fails here), each written below and
// validated by that schema, through ctxwin/openai-agents: toMessageLikes and back to the very same
// items, counted, added to a managed history, and fitted by contextInputFilter into a window too
// small for them, each call kept with its result.
import { protocol, type AgentInputItem } from "@openai/agents";
import { describe, expect, it } from "vitest";
import { MessageContextManager, TiktokenCounter } from "ctxwin";
import { contextInputFilter, toItems, toMessageLikes } from "ctxwin/openai-agents";

const counter = new TiktokenCounter({ model: "gpt-4.1" });
const words = (n: number, w = "data") => Array.from({ length: n }, (_, i) => `${w}${i % 9}`).join(" ");

/** One turn holding one item of every type, its calls answered; `text` is what the items carry. */
function turn(k: number, text: string): AgentInputItem[] {
  const id = (name: string) => `${name}_${k}`;
  return [
    { type: "message", role: "system", content: `rules ${k}` },
    { type: "message", role: "user", content: [{ type: "input_text", text }] },
    { type: "reasoning", id: id("rs"), content: [{ type: "input_text", text }] },
    {
      type: "hosted_tool_call",
      id: id("ws"),
      name: "web_search_call",
      arguments: JSON.stringify({ query: text }),
      status: "completed",
      output: text,
    },
    { type: "tool_search_call", id: id("tsc"), callId: id("ts"), arguments: { query: text }, execution: "client", status: "completed" },
    {
      type: "tool_search_output",
      id: id("tso"),
      callId: id("ts"),
      execution: "client",
      status: "completed",
      tools: [{ type: "function", name: "grep", description: text }],
    },
    { type: "program", id: id("pg"), callId: id("p"), code: `print(${JSON.stringify(text)})`, fingerprint: "fp" },
    { type: "program_output", id: id("pgo"), callId: id("p"), output: text, status: "completed" },
    { type: "function_call", callId: id("f"), name: "read_file", arguments: JSON.stringify({ path: text }), status: "completed" },
    { type: "function_call_result", callId: id("f"), name: "read_file", status: "completed", output: text },
    { type: "computer_call", callId: id("cu"), status: "completed", action: { type: "type", text } },
    { type: "computer_call_result", callId: id("cu"), output: { type: "computer_screenshot", data: "iVBORw0KGgo".repeat(300) } },
    { type: "shell_call", callId: id("sh"), status: "completed", action: { commands: [`echo ${text}`] } },
    { type: "shell_call_output", callId: id("sh"), output: [{ stdout: text, stderr: "", outcome: { type: "exit", exitCode: 0 } }] },
    { type: "apply_patch_call", callId: id("ap"), status: "completed", operation: { type: "update_file", path: "a.ts", diff: text } },
    { type: "apply_patch_call_output", callId: id("ap"), status: "completed", output: text },
    { type: "compaction", encrypted_content: text },
    { type: "unknown", providerData: { note: text } },
    { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] },
  ] as AgentInputItem[];
}

/** The schema member an item is of: its type, and a message's role. */
const kindOf = (item: { type?: unknown; role?: unknown }) =>
  item.type === "message" || item.type === undefined ? `message:${String(item.role)}` : String(item.type);

describe("the Agents SDK's item types", () => {
  it("are each written here, and each is what the SDK's own schema accepts", () => {
    const members = protocol.ModelItem.options.map((option) => {
      const shape = option.shape as { type: { def?: { values?: unknown[] } }; role?: { def?: { values?: unknown[] } } };
      return kindOf({ type: shape.type.def?.values?.[0], role: shape.role?.def?.values?.[0] });
    });
    expect(members.length).toBeGreaterThanOrEqual(19); // 19 in @openai/agents 0.14.3
    const items = turn(0, "alpha");
    expect(new Set(items.map(kindOf))).toEqual(new Set(members));
    for (const item of items) expect(() => protocol.ModelItem.parse(item), kindOf(item)).not.toThrow();
  });

  it("map to ctxwin's units and back to the very same items, every call answered within its unit", () => {
    const items = [...turn(0, "alpha"), ...turn(1, "beta")];
    const messages = toMessageLikes(items);
    const back = toItems(messages);
    expect(back).toEqual(items);
    back.forEach((item, i) => expect(item).toBe(items[i]));
    const context = new MessageContextManager({ model: "gpt-4.1", counter });
    for (const message of messages) context.addMessage(message); // no result without its call
    expect(context.getMessages()).toHaveLength(messages.length);
  });

  it("are counted: what they carry, and a screenshot as an image, not as its base64 text", () => {
    const short = counter.countMessages(toMessageLikes(turn(0, "alpha")));
    const long = counter.countMessages(toMessageLikes(turn(0, words(100))));
    expect(long - short).toBeGreaterThanOrEqual(100 * 8); // the payload is in eight items at least
    const withImages = counter.countMessages(toMessageLikes(turn(0, "alpha")), { imageTokens: 1000 });
    expect(withImages - short).toBe(1000 - 765);
  });

  it("are fitted by contextInputFilter into a small window, no call parted from its result", async () => {
    const filter = contextInputFilter({ model: "gpt-4.1", limits: { maxTokens: 6000, maxOutputTokens: 1000 } });
    const input = Array.from({ length: 8 }, (_, k) => turn(k, words(60))).flat();
    const { input: fitted } = await filter({
      modelData: { input, instructions: "Be brief." },
      agent: undefined as never,
      context: undefined,
    });
    expect(fitted.length).toBeLessThan(input.length);
    const calls = new Set<string>();
    for (const item of fitted as Array<{ type?: string; callId?: string }>) {
      if (item.callId === undefined) continue;
      if (item.type?.endsWith("_call") || item.type === "program") calls.add(item.callId);
      else expect(calls.has(item.callId), `${item.type} ${item.callId} without its call`).toBe(true);
    }
  });
});
