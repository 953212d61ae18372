// Cache hints and the manager's cost stats through the public API, at every request of a tool
// loop: the Anthropic body each step sends carries at most 4 breakpoints on its stable prefix
// (tools, system, the compaction boundary, the newest turn), the caller's body is never changed,
// OpenAI's key is stable per session, and getStats().cost splits every request exactly.
import { describe, expect, it } from "vitest";
import { ContextLimits, MessageContextManager, type MessageLike, type TokenCounter } from "ctxwin";
import {
  anthropicCacheControl,
  anthropicContextManagement,
  anthropicServerClearing,
  openAIPromptCacheKey,
  type AnthropicRequestBody,
} from "ctxwin/cost";

type Msg = MessageLike & { tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }> };

/** A character a token: the figures in the assertions are the lengths of the strings. */
const chars: TokenCounter = {
  count: (text) => text.length,
  // 3 tokens of reply priming at the end of every request, as OpenAI's chat format counts them.
  countMessages: (messages) =>
    messages.reduce(
      (sum, m) => sum + (typeof m.content === "string" ? m.content.length : 0) + JSON.stringify((m as Msg).tool_calls ?? "").length,
      3,
    ),
  countEachMessage: (messages: readonly MessageLike[]) =>
    Uint32Array.from(
      messages,
      (m) => (typeof m.content === "string" ? m.content.length : 0) + JSON.stringify((m as Msg).tool_calls ?? "").length,
    ),
} as TokenCounter;

const TOOLS = [
  { name: "read_file", description: "Reads a file", input_schema: { type: "object", properties: { path: { type: "string" } } } },
];

function bodyOf(cm: MessageContextManager<Msg>): AnthropicRequestBody {
  const { system, messages } = cm.getContextForRequest({ separateSystem: true });
  return {
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    system,
    tools: TOOLS,
    messages: messages.map((m) => ({
      role: m.role === "assistant" ? "assistant" : "user",
      content: typeof m.content === "string" ? m.content : "",
    })),
  };
}

const breakpoints = (body: AnthropicRequestBody) =>
  [
    ...(body.tools ?? []),
    ...(Array.isArray(body.system) ? body.system : []),
    ...body.messages.flatMap((m) => (typeof m.content === "string" ? [] : m.content)),
  ].filter((b) => b.cache_control !== undefined).length;

function manager(): MessageContextManager<Msg> {
  const cm = new MessageContextManager<Msg>({
    model: "claude-sonnet-4-5",
    counter: chars,
    mode: "smart" as never,
    limits: new ContextLimits({ model: "claude-sonnet-4-5", maxTokens: 40_000, maxOutputTokens: 0, reservedTokens: 0 }),
    cost: { now: () => 0, minimumPrefix: 1024 },
    logger: { warn: () => {} },
  });
  cm.setSystemPrompt("You are a careful coding agent. ".repeat(40));
  return cm;
}

/** The texts of a message's content: a string, text blocks, tool_result blocks' text. */
function textsOf(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((block: { text?: unknown; content?: unknown }) =>
    typeof block.text === "string" ? [block.text] : textsOf(block.content),
  );
}

describe("cache hints and cost at every step of a tool loop", () => {
  it("marks tools, system, the boundary and the newest turn; the manager bills each request exactly", () => {
    const cm = manager();
    let sawBoundary = false;
    let previousRequests = 0;
    for (let i = 0; i < 120; i++) {
      cm.addMessage({ role: "user", content: `Turn ${i}: read module ${i}.` });
      cm.addMessage({
        role: "assistant",
        content: null,
        tool_calls: [{ id: `c${i}`, type: "function", function: { name: "read_file", arguments: `{"path":"m${i}.ts"}` } }],
      });
      cm.addMessage({ role: "tool", tool_call_id: `c${i}`, content: `export const value${i} = ${i};\n`.repeat(20 + (i % 30)) });
      const body = bodyOf(cm);
      const snapshot = structuredClone(body);
      const hinted = anthropicCacheControl(body, { ttl: "1h" });
      expect(body).toEqual(snapshot); // the caller's body is untouched
      expect(breakpoints(hinted)).toBeLessThanOrEqual(4);
      const last = hinted.messages[hinted.messages.length - 1]?.content;
      expect(Array.isArray(last) && last[last.length - 1]?.cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
      expect(Array.isArray(hinted.system) && hinted.system[0]?.cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
      expect(hinted.tools?.[0]?.cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
      // The boundary: the last message holding what a compaction wrote (the omission marker, or a
      // placeholder of a result the default mode cleared before it dropped turns).
      const marker = body.messages.findLastIndex((m) =>
        textsOf(m.content).some((t) => /^\[\d+ messages omitted(\]$|; )/.test(t) || t.startsWith("[tool result cleared: ")),
      );
      if (marker >= 0 && marker < body.messages.length - 1) {
        sawBoundary = true;
        const content = hinted.messages[marker]?.content;
        expect(Array.isArray(content) && content[content.length - 1]?.cache_control).toBeTruthy();
        expect(breakpoints(hinted)).toBe(4);
      }
      const cost = cm.getStats().cost;
      expect(cost).toBeDefined();
      if (cost === undefined) return;
      expect(cost.session.requests).toBe(previousRequests + 1);
      previousRequests = cost.session.requests;
      const request = cost.requests[cost.requests.length - 1];
      expect(request?.inputTokens).toBe(cm.tokenUsage);
      expect((request?.cachedTokens ?? 0) + (request?.writtenTokens ?? 0) + (request?.uncachedTokens ?? 0)).toBe(cm.tokenUsage);
      expect(cost.session.cachedTokens + cost.session.writtenTokens + cost.session.uncachedTokens).toBe(cost.session.inputTokens);
    }
    expect(sawBoundary).toBe(true);
    const { session } = cm.getStats().cost ?? { session: undefined };
    expect(session && session.dollars < session.noCacheDollars).toBe(true);
    // Between trims each request reads the one before it from the cache.
    expect(session && session.cachedTokens > session.inputTokens / 2).toBe(true);
  });

  it("keeps the caller's breakpoints within the limit of 4 and refuses bad bodies with coded errors", () => {
    const body: AnthropicRequestBody = {
      system: [{ type: "text", text: "s", cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "user", content: [{ type: "text", text: "a", cache_control: { type: "ephemeral" } }] },
        { role: "assistant", content: [{ type: "text", text: "b", cache_control: { type: "ephemeral" } }] },
        { role: "user", content: "c" },
      ],
    };
    const hinted = anthropicCacheControl(body);
    expect(breakpoints(hinted)).toBe(4);
    expect(hinted.messages[2]?.content).toEqual([{ type: "text", text: "c", cache_control: { type: "ephemeral" } }]);
    expect(anthropicCacheControl(hinted)).toEqual(hinted); // nothing left to mark, nothing marked twice
    for (const [bad, options] of [
      [null, {}],
      [{ messages: "x" }, {}],
      [{ messages: [{ role: "user", content: 3 }] }, {}],
      [{ messages: [] }, { ttl: "2h" }],
      [{ messages: [{ role: "user", content: "x" }] }, { boundary: 1 }],
      [{ messages: [{ role: "user", content: "x" }] }, { boundary: "0" }],
    ] as const) {
      expect(() => anthropicCacheControl(bad as never, options as never)).toThrow(
        expect.objectContaining({ code: expect.stringMatching(/^ERR_CTXWIN_/) }),
      );
    }
  });

  it("emits Anthropic's context_management from the same policy", () => {
    expect(anthropicContextManagement({ effectiveLimit: 100_000, excludeTools: ["memory"] })).toEqual({
      edits: [
        {
          type: "clear_tool_uses_20250919",
          trigger: { type: "input_tokens", value: 80_000 },
          keep: { type: "tool_uses", value: 3 },
          clear_at_least: { type: "input_tokens", value: 20_000 },
          exclude_tools: ["memory"],
        },
      ],
    });
    expect(() => anthropicContextManagement({ effectiveLimit: 0 })).toThrow(RangeError);
    expect(() => anthropicContextManagement({ effectiveLimit: 10, trimAt: 0.5, trimTo: 0.7 })).toThrow(RangeError);
    expect(() => anthropicContextManagement({ effectiveLimit: 10, excludeTools: [1] as never })).toThrow(TypeError);
  });

  it("gives OpenAI one stable prompt_cache_key per session, holding nothing of its id", () => {
    const key = openAIPromptCacheKey("session-42");
    expect(key).toMatch(/^ctxwin-[0-9a-f]{16}$/);
    expect(openAIPromptCacheKey("session-42")).toBe(key);
    expect(openAIPromptCacheKey("session-43")).not.toBe(key);
    expect(key).not.toContain("42");
    expect(() => openAIPromptCacheKey("")).toThrow(RangeError);
    expect(() => openAIPromptCacheKey(7 as never)).toThrow(TypeError);
  });

  it("refuses a bad cost option with a coded error", () => {
    expect(() => new MessageContextManager({ model: "gpt-4o", counter: chars, cost: "yes" as never })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT" }),
    );
    expect(new MessageContextManager({ model: "gpt-4o", counter: chars }).getStats().cost).toBeUndefined();
  });
});

describe("anthropicServerClearing", () => {
  const use = (i: number, name = "read_file") => ({
    role: "assistant",
    content: [{ type: "tool_use", id: `t${i}`, name, input: { path: `f${i}` } }],
  });
  const result = (i: number, size: number) => ({
    role: "user",
    content: [{ type: "tool_result", tool_use_id: `t${i}`, content: "x".repeat(size) }],
  });
  const messages = [
    { role: "user", content: "task" },
    use(1),
    result(1, 1000),
    use(2, "memory"),
    result(2, 500),
    use(3),
    result(3, 2000),
    use(4),
    result(4, 300),
    use(5),
    result(5, 400),
  ];
  const length = (text: string) => text.length;
  const edit = anthropicContextManagement({ effectiveLimit: 10_000, keepToolUses: 2, excludeTools: ["memory"], trimAt: 0.5, trimTo: 0.4 })
    .edits[0];

  it("clears the oldest results but the last `keep` and the excluded tools' once over the trigger, or nothing", () => {
    if (edit === undefined) throw new Error("no edit");
    expect(anthropicServerClearing(messages, edit, 5000, length)).toEqual({ clearedToolUses: 0, clearedInputTokens: 0 }); // at the trigger
    expect(anthropicServerClearing(messages, edit, 5001, length)).toEqual({ clearedToolUses: 2, clearedInputTokens: 3000 }); // t1 and t3; t2 excluded, t4 and t5 kept
    const inputs = { ...edit, clear_tool_inputs: true };
    expect(anthropicServerClearing(messages, inputs, 5001, length).clearedInputTokens).toBe(
      3000 + 2 * JSON.stringify({ path: "f1" }).length,
    );
    // Less than clear_at_least to clear: the edit is not applied.
    expect(anthropicServerClearing(messages, { ...edit, clear_at_least: { type: "input_tokens", value: 3001 } }, 9000, length)).toEqual({
      clearedToolUses: 0,
      clearedInputTokens: 0,
    });
    expect(() => anthropicServerClearing("x" as never, edit, 1, length)).toThrow(TypeError);
    expect(() => anthropicServerClearing(messages, { type: "clear_thinking" } as never, 1, length)).toThrow(TypeError);
    expect(() => anthropicServerClearing(messages, edit, -1, length)).toThrow(RangeError);
  });
});
