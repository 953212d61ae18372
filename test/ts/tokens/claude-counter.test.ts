// ClaudeCounter through the public API: model routing, counting, whole Anthropic requests (their
// unmeasured parts are upper bounds), CachingCounter keeping its framing, bad input.
import { describe, expect, it } from "vitest";
import { ClaudeCounter, getCounter, TiktokenCounter } from "ctxwin";
import { CachingCounter, claudeFamilyForModel, encodingForModel } from "ctxwin/tokens";
import { CLAUDE_REQUEST_MARGINS, claudeImageTokensFor } from "../../../ts/tokens/claude-messages.js";

describe("Claude model ids", () => {
  it("route every spelling to its family", () => {
    const cases: Array<[string, string | undefined]> = [
      ["claude-3-opus-20240229", "v3"],
      ["claude-3-haiku", "v3"],
      ["claude-3-5-sonnet-20241022", "v3"],
      ["claude-3-5-sonnet-latest", "v3"],
      ["claude-3-7-sonnet-20250219", "v3"],
      ["claude-sonnet-4-20250514", "v3"],
      ["claude-opus-4-1-20250805", "v3"],
      ["claude-opus-4-5", "v3"],
      ["claude-sonnet-4-5-20250929", "v3"],
      ["claude-haiku-4-5", "v3"],
      ["claude-opus-4-6", "v3"],
      ["claude-opus-4-7", "v4.7"],
      ["claude-opus-4-8", "v4.7"],
      ["claude-opus-4-9-20260901", "v4.7"],
      ["claude-opus-5", "v5"],
      ["claude-sonnet-5", "v5"],
      ["anthropic/claude-3.5-sonnet", "v3"],
      ["anthropic/claude-opus-4.7", "v4.7"],
      ["openrouter/anthropic/claude-sonnet-5", "v5"],
      ["anthropic.claude-3-5-sonnet-20240620-v1:0", "v3"],
      ["us.anthropic.claude-sonnet-4-20250514-v1:0", "v3"],
      ["eu.anthropic.claude-opus-4-7-v1:0", "v4.7"],
      ["claude-3-5-sonnet-v2@20241022", "v3"],
      ["claude-opus-4@20250514", "v3"],
      ["Claude-Opus-4-7", "v4.7"],
      ["claude-2.1", undefined],
      ["claude-instant-1.2", undefined],
      ["gpt-4o", undefined],
      ["claude", undefined],
    ];
    for (const [model, family] of cases) expect(claudeFamilyForModel(model), model).toBe(family);
  });

  it("encodingForModel names the family, exactly", () => {
    expect(encodingForModel("claude-3-opus")).toEqual({ encoding: "claude-v3", exact: true, family: "v3" });
    expect(encodingForModel("anthropic/claude-opus-4.7")).toEqual({ encoding: "claude-v4.7", exact: true, family: "v4.7" });
    expect(encodingForModel("claude-sonnet-5")).toEqual({ encoding: "claude-v5", exact: true, family: "v5" });
    // A TiktokenCounter asked for a Claude model still uses its o200k_base stand-in.
    expect(new TiktokenCounter({ model: "claude-3-opus" }).encoding).toBe("o200k_base");
  });

  it("getCounter gives a cached ClaudeCounter of the family", () => {
    for (const [model, family] of [
      ["claude-opus-4-5", "v3"],
      ["claude-opus-4-7", "v4.7"],
      ["us.anthropic.claude-sonnet-5-v1:0", "v5"],
    ] as const) {
      const counter = getCounter(model);
      expect(counter.inner).toBeInstanceOf(ClaudeCounter);
      expect((counter.inner as ClaudeCounter).family).toBe(family);
    }
  });
});

describe("ClaudeCounter", () => {
  const v3 = new ClaudeCounter({ family: "v3" });
  const v47 = new ClaudeCounter({ model: "claude-opus-4-7" });
  const v5 = new ClaudeCounter({ family: "v5" });

  it("has each family's frame", () => {
    expect([v3.messageOverhead, v47.messageOverhead, v5.messageOverhead]).toEqual([7, 11, 6]);
    expect(v3.countMessages([{ role: "user", content: "hello" }])).toBe(8);
    expect(v3.markedStream("Hello, world")).toBe("⟨shift⟩⟨bow⟩hello⟨eow⟩,⟨eow⟩⟨bow⟩world⟨eow⟩");
    expect(v3.count("")).toBe(0);
    expect(v3.countMessages([])).toBe(0);
  });

  it("counts many texts at once and on the thread pool", async () => {
    const texts = ["a", "hello world", "", "日本語のテキスト", "x".repeat(2_000_000)];
    const expected = Uint32Array.from(texts, (t) => v47.count(t));
    expect(v47.countMany(texts)).toEqual(expected);
    expect(await v47.countManyAsync(texts)).toEqual(expected);
    expect(await v47.countAsync("hello world")).toBe(v47.count("hello world"));
  });

  it("counts a text block like the same string, and a further message as a whole frame more", () => {
    const text = "What is the capital of France?";
    const one = v3.countMessages([{ role: "user", content: text }]);
    expect(v3.countMessages([{ role: "user", content: [{ type: "text", text }] }])).toBe(one);
    const two = v3.countMessages([
      { role: "user", content: text },
      { role: "assistant", content: "Paris." },
    ]);
    expect(two).toBe(one + v3.messageOverhead + v3.count("Paris."));
    expect(
      Array.from(
        v3.countEachMessage([
          { role: "user", content: text },
          { role: "assistant", content: "Paris." },
        ]),
      ),
    ).toEqual([one, two - one]);
  });

  it("counts a system prompt, tools with the tool-use system prompt, and tool blocks", () => {
    const messages = [{ role: "user", content: "Weather in Paris?" }];
    const base = v3.countMessages(messages);
    const system = "You are terse.";
    expect(v3.countMessages(messages, { system })).toBe(base + v3.messageOverhead + v3.count(system));
    expect(v3.countMessages(messages, { system: [{ type: "text", text: system }] })).toBe(base + v3.messageOverhead + v3.count(system));
    const tool = {
      name: "get_weather",
      description: "Current weather",
      input_schema: { type: "object", properties: { city: { type: "string" } } },
    };
    const withTools = (model: string, toolChoice?: "auto" | "any") =>
      new ClaudeCounter({ model }).countMessages(messages, { tools: [tool], toolChoice }) -
      new ClaudeCounter({ model }).countMessages(messages);
    const json = v3.count(JSON.stringify(tool));
    // Anthropic's published tool-use system prompts: 346 (auto) / 313 (any) on Claude 4, 530 / 281 on Claude 3 Opus.
    expect(withTools("claude-sonnet-4-5", "auto")).toBe(346 + CLAUDE_REQUEST_MARGINS.toolDefinition + json);
    expect(withTools("claude-sonnet-4-5", "any")).toBe(313 + CLAUDE_REQUEST_MARGINS.toolDefinition + json);
    expect(withTools("claude-3-opus-20240229")).toBe(530 + CLAUDE_REQUEST_MARGINS.toolDefinition + json);
    // An OpenAI-shaped definition counts as the Anthropic one it becomes.
    const openAi = { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.input_schema } };
    expect(v3.countMessages(messages, { tools: [openAi] })).toBe(v3.countMessages(messages, { tools: [tool] }));
    const conversation = [
      { role: "user", content: "Weather in Paris?" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "18°C, clear" }] },
    ];
    const each = v3.countEachMessage(conversation);
    expect(each[1]).toBe(
      v3.messageOverhead + CLAUDE_REQUEST_MARGINS.toolUse + v3.count("toolu_01") + v3.count("get_weather") + v3.count('{"city":"Paris"}'),
    );
    expect(each[2]).toBeGreaterThanOrEqual(v3.messageOverhead + v3.count("18°C, clear"));
  });

  it("sizes images by Anthropic's formula after its resizing, and charges the largest when the size is unknown", () => {
    // A 200x200 PNG header: 200 is padded to 224 (a multiple of 28), 224 * 224 / 750 = 66.9.
    const png = Buffer.alloc(33);
    png.writeUInt32BE(0x89504e47, 0);
    png.writeUInt32BE(0x0d0a1a0a, 4);
    png.writeUInt32BE(13, 8);
    png.write("IHDR", 12, "latin1");
    png.writeUInt32BE(200, 16);
    png.writeUInt32BE(200, 20);
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data: png.toString("base64") } };
    const withImage = v3.countMessages([{ role: "user", content: [image, { type: "text", text: "Describe." }] }]);
    const textOnly = v3.countMessages([{ role: "user", content: "Describe." }]);
    expect(withImage - textOnly).toBe(67 + CLAUDE_REQUEST_MARGINS.extraBlock);
    expect(claudeImageTokensFor(200, 200, "v3")).toBe(67);
    // Larger than the native resolution: scaled down first (about 1,600 tokens up to Opus 4.6, more from 4.7).
    expect(claudeImageTokensFor(4000, 3000, "v3")).toBeLessThanOrEqual(1700);
    expect(claudeImageTokensFor(4000, 3000, "v4.7")).toBeGreaterThan(4000);
    const byUrl = v3.countMessages([
      { role: "user", content: [{ type: "image", source: { type: "url", url: "https://example.com/a.png" } }] },
    ]);
    expect(byUrl).toBeGreaterThanOrEqual(v3.messageOverhead + 1600);
  });

  it("charges a PDF by its pages, and a text document as its text", () => {
    const pdf = Buffer.from(
      "%PDF-1.4\n1 0 obj << /Type /Pages /Count 2 >>\n2 0 obj << /Type /Page >>\n3 0 obj << /Type /Page >>\n%%EOF",
      "latin1",
    );
    const doc = { type: "document", source: { type: "base64", media_type: "application/pdf", data: pdf.toString("base64") } };
    const one = v3.countMessages([{ role: "user", content: [doc] }]) - v3.messageOverhead;
    expect(one).toBeGreaterThanOrEqual(2 * 3000);
    const text = { type: "document", source: { type: "text", media_type: "text/plain", data: "The grass is green." } };
    expect(v3.countMessages([{ role: "user", content: [text] }])).toBe(v3.messageOverhead + v3.count("The grass is green."));
  });

  it("keeps its framing inside a CachingCounter", () => {
    const cached = new CachingCounter(new ClaudeCounter({ family: "v4.7" }));
    const messages = [
      { role: "user", content: "hello there" },
      { role: "assistant", content: "General Kenobi" },
    ];
    expect(cached.countMessages(messages, { system: "Be brief." })).toBe(v47.countMessages(messages, { system: "Be brief." }));
    expect(cached.countEachMessage(messages)).toEqual(v47.countEachMessage(messages));
    expect(cached.countMessages(messages)).toBe(cached.countMessages(messages));
    expect(cached.hits).toBeGreaterThan(0);
  });

  it("rejects bad options with coded errors", () => {
    expect(() => new ClaudeCounter({ family: "v4" as never })).toThrow(RangeError);
    expect(() => new ClaudeCounter({ model: "gpt-4o" })).toThrow(/Claude 3 or later/);
    expect(() => new ClaudeCounter({})).toThrow(TypeError);
    expect(() => v3.countMessages([{ role: "user", content: "x" }], { toolChoice: "sometimes" as never, tools: [] })).toThrow(RangeError);
    expect(() => v3.countMessages([{ role: "user", content: "x" }], { system: [{ nope: 1 }] as never })).toThrow(TypeError);
    try {
      new ClaudeCounter({ family: "v9" as never });
    } catch (error) {
      expect((error as { code?: string }).code).toBe("ERR_CTXWIN_UNKNOWN_ENCODING");
    }
  });
});
