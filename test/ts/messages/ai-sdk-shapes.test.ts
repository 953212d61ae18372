// The messages the AI SDK itself produces, made by its own code rather than written here:
// generateText's response.messages for a provider-executed tool (Anthropic's web search and code
// execution, through @ai-sdk/anthropic's parser of a recorded-shape response), the request body
// that provider then sends (Anthropic's server_tool_use and *_tool_result blocks), the prompt a
// middleware sees between the steps, and convertToModelMessages' output for UI messages with
// provider-executed tools and tool approvals. Each goes through the README loop
// (`for (const m of response.messages) context.addMessage(m)`), countMessages and a trim, a
// provider-executed call with its result as one unit.
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import {
  convertToModelMessages,
  generateText,
  jsonSchema,
  stepCountIs,
  tool,
  wrapLanguageModel,
  type ModelMessage,
  type UIMessage,
} from "ai";
import { describe, expect, it } from "vitest";
import { ClaudeCounter, MessageContextManager, TiktokenCounter, type MessageLike } from "ctxwin";
import { TokenBudgetStrategy } from "ctxwin/truncation";
import { contextMiddleware, type FitEvent } from "ctxwin/ai-sdk";

const counter = new TiktokenCounter({ model: "gpt-4o" });
const page = "ctxwin keeps an agent's conversation inside its model's context window. ".repeat(20);

/** An Anthropic Messages API response: Claude searched the web and ran code (server tools), then answered. */
function serverToolsResponse(turn: number): object {
  return {
    id: `msg_${turn}`,
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [
      { type: "text", text: "Let me look that up." },
      { type: "server_tool_use", id: `srvtoolu_ws${turn}`, name: "web_search", input: { query: "ctxwin context window" } },
      {
        type: "web_search_tool_result",
        tool_use_id: `srvtoolu_ws${turn}`,
        content: [
          { type: "web_search_result", url: "https://example.com/ctxwin", title: "ctxwin", encrypted_content: page, page_age: "1 day ago" },
        ],
      },
      { type: "server_tool_use", id: `srvtoolu_ce${turn}`, name: "code_execution", input: { code: "print(2 ** 10)" } },
      {
        type: "code_execution_tool_result",
        tool_use_id: `srvtoolu_ce${turn}`,
        content: { type: "code_execution_result", stdout: "1024\n", stderr: "", return_code: 0 },
      },
      { type: "text", text: `Answer ${turn}: it trims, compacts and recalls.` },
    ],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 20, server_tool_use: { web_search_requests: 1 } },
  };
}

/** An Anthropic provider whose HTTP calls are answered here; every request body it sends is kept. */
function recordingAnthropic() {
  const bodies: Array<{ messages: MessageLike[]; system?: unknown }> = [];
  let turn = 0;
  const provider = createAnthropic({
    apiKey: "test",
    fetch: async (_url, init) => {
      bodies.push(JSON.parse(String(init?.body)));
      return new Response(JSON.stringify(serverToolsResponse(++turn)), { status: 200, headers: { "content-type": "application/json" } });
    },
  });
  const tools = { web_search: provider.tools.webSearch_20250305({ maxUses: 2 }), code_execution: provider.tools.codeExecution_20250522() };
  return { provider, tools, bodies };
}

/** Every tool-call id an AI SDK message list holds, mapped to the message holding its result. */
function unitsOf(messages: readonly ModelMessage[]): Map<string, { call: ModelMessage; result?: ModelMessage }> {
  const units = new Map<string, { call: ModelMessage; result?: ModelMessage }>();
  for (const m of messages) {
    if (!Array.isArray(m.content)) continue;
    for (const part of m.content) if (part.type === "tool-call") units.set(part.toolCallId, { call: m });
    for (const part of m.content) if (part.type === "tool-result") units.get(part.toolCallId)!.result = m;
  }
  return units;
}

describe("provider-executed tools (Anthropic web search and code execution) in response.messages", () => {
  it("go through the README loop, countMessages and trims: the call and its result in one assistant message", async () => {
    const { provider, tools } = recordingAnthropic();
    const context = new MessageContextManager({ model: "claude-sonnet-4-5" });
    const history: ModelMessage[] = [];
    for (let i = 0; i < 3; i++) {
      const user: ModelMessage = { role: "user", content: `Question ${i}: what does ctxwin do?` };
      history.push(user);
      context.addMessage(user);
      const response = await generateText({ model: provider("claude-sonnet-4-5"), tools, messages: history });
      const assistant = response.response.messages;
      // The AI SDK puts each provider-executed call and its result in the one assistant message.
      expect(assistant).toHaveLength(1);
      const units = unitsOf(assistant);
      expect(units.size).toBe(2);
      for (const unit of units.values()) expect(unit.result).toBe(unit.call);
      for (const m of assistant) context.addMessage(m); // the README loop
      history.push(...assistant);
    }
    expect(context.getMessages()).toEqual(history);
    // The search result's text is counted, once.
    const withResults = counter.countMessages(history);
    expect(withResults).toBeGreaterThan(3 * counter.count(page));
    const kept = new TokenBudgetStrategy().truncate(history, Math.floor(withResults / 2), counter);
    for (const m of kept) expect(history).toContain(m);
    expect(kept.length).toBeLessThan(history.length);
  });

  it("are what the next request sends as server_tool_use and *_tool_result blocks, which ctxwin reads too", async () => {
    const { provider, tools, bodies } = recordingAnthropic();
    const first = await generateText({
      model: provider("claude-sonnet-4-5"),
      tools,
      messages: [{ role: "user", content: "What does ctxwin do?" }],
    });
    await generateText({
      model: provider("claude-sonnet-4-5"),
      tools,
      messages: [{ role: "user", content: "What does ctxwin do?" }, ...first.response.messages, { role: "user", content: "And how?" }],
    });
    const sent = bodies[1]!.messages;
    const blockTypes = sent.flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type: string }>).map((b) => b.type) : []));
    expect(blockTypes).toEqual(expect.arrayContaining(["server_tool_use", "web_search_tool_result", "code_execution_tool_result"]));
    const context = new MessageContextManager({ model: "claude-sonnet-4-5" });
    for (const m of sent) context.addMessage(m);
    expect(context.getMessages()).toEqual(sent);
    for (const c of [counter, new ClaudeCounter({ family: "v5" })]) {
      // The encrypted page stands for what Claude read: it is counted.
      expect(c.countMessages(sent)).toBeGreaterThan(c.count(page));
    }
  });

  it("reach a middleware on every later call, which fits them into a small window as whole units", async () => {
    const { provider, tools, bodies } = recordingAnthropic();
    const events: FitEvent[] = [];
    const middleware = contextMiddleware({
      model: "claude-sonnet-4-5",
      limits: { maxTokens: 3000, maxOutputTokens: 500 },
      onCompact: (event) => events.push(event),
    });
    const model = wrapLanguageModel({ model: provider("claude-sonnet-4-5"), middleware });
    const messages: ModelMessage[] = [];
    for (let i = 0; i < 8; i++) {
      messages.push({ role: "user", content: `Question ${i}: what does ctxwin do?` });
      const response = await generateText({ model, tools, messages });
      messages.push(...response.response.messages);
    }
    expect(events.length).toBeGreaterThan(0);
    expect(bodies.at(-1)!.messages.length).toBeLessThan(messages.length);
    // Every request the provider sent holds each server tool call with its result, unchanged.
    for (const body of bodies) {
      for (const message of body.messages) {
        if (!Array.isArray(message.content)) continue;
        const blocks = message.content as Array<{ type: string; id?: string; tool_use_id?: string; content?: unknown }>;
        for (const call of blocks.filter((b) => b.type === "server_tool_use")) {
          const result = blocks.find((b) => b.tool_use_id === call.id);
          expect(result, `${call.id} sent without its result`).toBeDefined();
          if (result!.type === "web_search_tool_result") expect(JSON.stringify(result!.content)).toContain("ctxwin keeps an agent");
        }
      }
    }
  });
});

describe("convertToModelMessages' output", () => {
  const ui: UIMessage[] = [
    { id: "u1", role: "user", parts: [{ type: "text", text: "Search the web, then delete the temp files." }] },
    {
      id: "a1",
      role: "assistant",
      parts: [
        { type: "step-start" },
        {
          type: "tool-web_search",
          toolCallId: "ws1",
          state: "output-available",
          input: { query: "ctxwin" },
          output: [{ url: "https://example.com", title: "ctxwin", pageAge: null, encryptedContent: page }],
          providerExecuted: true,
        },
        { type: "text", text: "Found it. Deleting the temp files needs your approval." },
        {
          type: "tool-delete_files",
          toolCallId: "del1",
          state: "approval-responded",
          input: { glob: "/tmp/*" },
          approval: { id: "appr1", approved: true, reason: "fine" },
        },
      ],
    },
    {
      id: "a2",
      role: "assistant",
      parts: [
        {
          type: "tool-delete_files",
          toolCallId: "del2",
          state: "output-denied",
          input: { glob: "/" },
          approval: { id: "appr2", approved: false, reason: "too broad" },
        },
        { type: "text", text: "I will not delete /." },
      ],
    },
  ];

  it("holds a provider-executed call with its result, approvals and their answers, and ctxwin takes all of it", async () => {
    const messages = await convertToModelMessages(ui);
    const parts = messages.flatMap((m) => (Array.isArray(m.content) ? m.content.map((p) => `${m.role}:${p.type}`) : [`${m.role}:text`]));
    expect(parts).toEqual(
      expect.arrayContaining([
        "assistant:tool-call",
        "assistant:tool-result",
        "assistant:tool-approval-request",
        "tool:tool-approval-response",
        "tool:tool-result",
      ]),
    );
    const context = new MessageContextManager({ model: "gpt-4o", counter });
    for (const m of messages) context.addMessage(m);
    expect(context.getMessages()).toEqual(messages);
    expect(counter.countMessages(messages)).toBeGreaterThan(counter.count(page));
    // An approval answer is kept with the call it answers: no trim keeps one without the other.
    for (let budget = 10; budget < counter.countMessages(messages); budget += 25) {
      const kept = new Set(new TokenBudgetStrategy().truncate(messages, budget, counter));
      messages.forEach((m, i) => {
        if (m.role !== "tool" || !kept.has(m)) return;
        expect(kept.has(messages[i - 1]!), `kept the answer at ${i} without its call (budget ${budget})`).toBe(true);
      });
    }
  });
});

describe("an OpenAI-compatible provider's converted request", () => {
  it("holds the chat messages the AI SDK converts a tool loop into (tool_calls, tool messages), which ctxwin reads as they are", async () => {
    const bodies: Array<{ messages: MessageLike[]; tools?: unknown[] }> = [];
    let call = 0;
    const provider = createOpenAICompatible({
      name: "compat",
      baseURL: "https://example.invalid/v1",
      fetch: async (_url, init) => {
        bodies.push(JSON.parse(String(init?.body)));
        call++;
        const message =
          call < 3
            ? {
                role: "assistant",
                content: null,
                tool_calls: [
                  { id: `call_${call}`, type: "function", function: { name: "lookup", arguments: JSON.stringify({ q: `term ${call}` }) } },
                ],
              }
            : { role: "assistant", content: "Both terms are defined." };
        const body = {
          id: `r${call}`,
          object: "chat.completion",
          created: 0,
          model: "m",
          choices: [{ index: 0, message, finish_reason: call < 3 ? "tool_calls" : "stop" }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        };
        return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
      },
    });
    const lookup = tool({
      description: "Look up a term",
      inputSchema: jsonSchema<{ q: string }>({
        type: "object",
        properties: { q: { type: "string", description: "The term" } },
        required: ["q"],
      }),
      execute: async ({ q }) => `definition of ${q}: ${page}`,
    });
    await generateText({
      model: provider("m"),
      tools: { lookup },
      stopWhen: stepCountIs(5),
      system: "Be brief.",
      prompt: "Define two terms.",
    });
    const sent = bodies.at(-1)!;
    expect(sent.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "tool"]);
    const context = new MessageContextManager({ model: "gpt-4o", counter });
    for (const m of sent.messages) context.addMessage(m);
    expect(context.getMessages()).toEqual(sent.messages);
    expect(counter.countMessages(sent.messages, { tools: sent.tools as never })).toBeGreaterThan(
      2 * counter.count(page) + counter.countMessages(sent.messages.slice(0, 2)),
    );
  });
});
