// Seeds 001 / 003 / 004 token-counting scenarios through the public API.
import { spawnSync } from "node:child_process";
import { get_encoding } from "tiktoken";
import { describe, expect, it, vi } from "vitest";
import { TiktokenCounter, backend, getCounter, type TokenCounter } from "ctxwin";
import { ApproximateCounter, CachingCounter, encodingForModel } from "ctxwin/tokens";
import { CATEGORIES, documents } from "../support/corpus.js";

describe("TiktokenCounter", () => {
  it("counts 'Hello, world!' as a positive integer equal to tiktoken's count", () => {
    const counter = new TiktokenCounter();
    const count = counter.count("Hello, world!");
    expect(Number.isInteger(count) && count > 0).toBe(true);
    const reference = get_encoding("cl100k_base");
    expect(count).toBe(reference.encode("Hello, world!").length); // within 5%: exactly equal
    reference.free();
  });

  it("maps models to encodings as tiktoken does", () => {
    expect(new TiktokenCounter({ model: "gpt-4o" }).encoding).toBe("o200k_base");
    expect(new TiktokenCounter({ model: "gpt-4o-2024-08-06" }).encoding).toBe("o200k_base");
    expect(new TiktokenCounter({ model: "openai/gpt-4.1-mini" }).encoding).toBe("o200k_base");
    expect(new TiktokenCounter({ model: "o3-mini" }).encoding).toBe("o200k_base");
    expect(new TiktokenCounter({ model: "gpt-5" }).encoding).toBe("o200k_base");
    expect(new TiktokenCounter({ model: "gpt-4" }).encoding).toBe("cl100k_base");
    expect(new TiktokenCounter({ model: "gpt-3.5-turbo-0125" }).encoding).toBe("cl100k_base");
    expect(new TiktokenCounter().encoding).toBe("cl100k_base");
    expect(encodingForModel("claude-3-opus")).toEqual({ encoding: "claude-v3", exact: true, family: "v3" });
    expect(encodingForModel("grok-3")).toEqual({ encoding: "o200k_base", exact: false });
    expect(encodingForModel("gpt-4o")).toEqual({ encoding: "o200k_base", exact: true });
  });

  it("encodes, decodes and round-trips; special tokens are text unless allowed", () => {
    const counter = new TiktokenCounter({ encoding: "cl100k_base" });
    expect(Array.from(counter.encode("hello world"))).toEqual([15339, 1917]);
    expect(counter.decode(counter.encode("naïve café 😀"))).toBe("naïve café 😀");
    expect(counter.count("<|endoftext|>")).toBeGreaterThan(1);
    expect(Array.from(counter.encode("<|endoftext|>", { allowedSpecial: "all" }))).toEqual([100257]);
  });

  it("counts many texts in one call, and asynchronously", async () => {
    const counter = new TiktokenCounter({ encoding: "o200k_base" });
    const texts = ["a", "hello world", "", "日本語のテキスト"];
    const expected = Uint32Array.from(texts, (t) => counter.count(t));
    expect(counter.countMany(texts)).toEqual(expected);
    expect(await counter.countManyAsync(texts)).toEqual(expected);
    expect(await counter.countAsync("hello world")).toBe(2);
  });

  it("splits a batch of a megabyte or more over worker threads, results in order", async () => {
    const counter = new TiktokenCounter({ encoding: "o200k_base" });
    const texts = CATEGORIES.flatMap((category) => documents(category).slice(0, 200));
    texts.splice(3, 0, "", "x".repeat(300_000), "");
    expect(texts.reduce((n, t) => n + t.length, 0)).toBeGreaterThan(1_100_000);
    const expected = counter.countMany(texts);
    TiktokenCounter.clearPieceCaches();
    const [first, second] = await Promise.all([counter.countManyAsync(texts), counter.countManyAsync(texts.slice().reverse())]);
    expect(first).toEqual(expected);
    expect(Array.from(second).reverse()).toEqual(Array.from(expected));
    expect(await counter.countManyAsync([])).toEqual(new Uint32Array(0));
  });

  it("falls back to ApproximateCounter with one warning when its rank data cannot be loaded", () => {
    // The rank tables are shared by the whole process (every worker thread of this run), and any
    // earlier test file may have loaded p50k_base: the first load is tried in a process of its own.
    const script = `
      import { TiktokenCounter } from "ctxwin";
      const warnings = [];
      const counter = new TiktokenCounter({ encoding: "p50k_base", rankDataDir: "/nonexistent", logger: { warn: (m) => warnings.push(m) } });
      console.log(JSON.stringify({
        exact: counter.exact,
        warnings,
        words: counter.count("one two three four five"),
        messages: counter.countMessages([{ role: "user", content: "hi" }]),
      }));`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", env: process.env });
    expect(child.stderr).toBe("");
    const result = JSON.parse(child.stdout) as { exact: boolean; warnings: string[]; words: number; messages: number };
    expect(result.exact).toBe(false);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(/cannot load p50k_base rank data.*counting approximately/);
    expect(result.words).toBe(7);
    expect(result.messages).toBeGreaterThan(0);
  });

  // Natively the count runs on libuv's pool and the event loop keeps turning. The WebAssembly
  // build has no threads: emnapi runs the same job on the main thread after the call returns, so
  // the promise resolves with the same count but timers wait (docs/install.md says so).
  it("counts a 100 MB text asynchronously: natively off the event loop, timers keep firing", async () => {
    const counter = new TiktokenCounter({ encoding: "cl100k_base" });
    const paragraph = "The quick brown fox jumps over the lazy dog; 42 tests passed in 3.2s.\n";
    const text = paragraph.repeat(Math.ceil(100e6 / paragraph.length));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const count = await counter.countAsync(text);
    clearInterval(timer);
    if (backend === "native") expect(ticks).toBeGreaterThan(3);
    expect(count).toBe(counter.count(paragraph) * Math.ceil(100e6 / paragraph.length));
  }, 120_000);
});

describe("ApproximateCounter", () => {
  it("gives 6-7 tokens for 'one two three four five' at 1.3 tokens per word", () => {
    const count = new ApproximateCounter({ tokensPerWord: 1.3 }).count("one two three four five");
    expect(count).toBeGreaterThanOrEqual(6);
    expect(count).toBeLessThanOrEqual(7);
    expect(new ApproximateCounter().count("one two three four five")).toBe(count);
  });

  it("counts characters per token when asked (seeds 000/004: 4, SPEC-08: 3.5)", () => {
    expect(new ApproximateCounter({ charsPerToken: 4 }).count("12345678")).toBe(2);
    expect(new ApproximateCounter({ charsPerToken: 4 }).count("123456789")).toBe(3);
    expect(new ApproximateCounter({ charsPerToken: 3.5 }).count("hello")).toBe(2);
  });

  it("counts many texts in one call, each as count does", () => {
    const texts = ["one two three", "", "  spaced\u00A0out\u3000words ", "x".repeat(1000), "日本語 テキスト"];
    for (const counter of [
      new ApproximateCounter(),
      new ApproximateCounter({ tokensPerWord: 2.5 }),
      new ApproximateCounter({ charsPerToken: 4 }),
    ]) {
      expect(Array.from(counter.countMany(texts))).toEqual(texts.map((t) => counter.count(t)));
    }
    expect(() => new ApproximateCounter().countMany(["a", 1 as unknown as string])).toThrow(/texts\[1\] must be a string/);
  });
});

describe("countMessages", () => {
  const counter = new TiktokenCounter({ model: "gpt-4o" });

  it("includes message structure overhead and reply priming", () => {
    const messages = [
      { role: "user", content: "Hello" },
      { role: "assistant", content: "Hi there!" },
    ];
    const contentOnly = counter.count("Hello") + counter.count("Hi there!");
    const total = counter.countMessages(messages);
    // 3 per message + role + content, +3 to prime the reply (OpenAI Cookbook).
    expect(total).toBe(2 * 3 + counter.count("user") + counter.count("assistant") + contentOnly + 3);
    expect(counter.countMessages([{ role: "user", content: "Hello", name: "ana" }])).toBe(3 + 1 + 1 + 1 + counter.count("ana") + 3);
  });

  it("counts tool calls: structure overhead, function name and arguments", () => {
    const base = { role: "assistant", content: null };
    const call = (name: string, args: string) => ({
      ...base,
      tool_calls: [{ id: "c1", type: "function", function: { name, arguments: args } }],
    });
    const without = counter.countMessages([base]);
    const withCall = counter.countMessages([call("get_weather", '{"city":"Paris"}')]);
    expect(withCall).toBe(without + 3 + counter.count("get_weather") + counter.count('{"city":"Paris"}'));
    expect(counter.countMessages([call("get_weather", '{"city":"Paris, France, Europe"}')])).toBeGreaterThan(withCall);
  });

  it("reads AI SDK and Anthropic shapes the same way as OpenAI's", () => {
    const openai = [
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: "file body" },
    ];
    const aiSdk = [
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "read", input: { path: "a.ts" } }] },
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c1", toolName: "read", output: { type: "text", value: "file body" } }],
      },
    ];
    const anthropic = [
      { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "read", input: { path: "a.ts" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: "file body" }] },
    ];
    const a = counter.countMessages(aiSdk);
    const b = counter.countMessages(anthropic);
    expect(Math.abs(a - b)).toBeLessThanOrEqual(2); // role names differ ("tool" vs "user")
    expect(Math.abs(counter.countMessages(openai) - a)).toBeLessThanOrEqual(counter.count("c1") + 1);
    const image = counter.countMessages([{ role: "user", content: [{ type: "image", image: "data:..." }] }]);
    expect(image).toBe(3 + counter.count("user") + 765 + 3);
  });

  it("counts tool definitions as the TypeScript namespace the API writes them into (openai-function-calling.test.ts checks it against the API)", () => {
    const tools = [
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Get the weather.",
          parameters: {
            type: "object",
            properties: { city: { type: "string", description: "City name." }, unit: { type: "string", enum: ["c", "f"] } },
            required: ["city"],
          },
        },
      },
    ];
    const messages = [{ role: "user", content: "Weather in Paris?" }];
    const namespace = [
      "namespace functions {",
      "",
      "// Get the weather.",
      "type get_weather = (_: {",
      "// City name.",
      "city: string,",
      'unit?: "c" | "f",',
      "}) => any;",
      "",
      "} // namespace functions",
    ].join("\n");
    expect(counter.countMessages(messages, { tools })).toBe(counter.countMessages(messages) + counter.count(namespace) + 9);
  });

  it("rejects messages without a role", () => {
    expect(() => counter.countMessages([{ content: "x" } as never])).toThrow(TypeError);
    expect(() => counter.countMessages([{ content: "x" } as never])).toThrow(/messages\[0\]\.role must be one of/);
  });
});

describe("CachingCounter and getCounter", () => {
  it("uses the cached result the second time", () => {
    const inner = new TiktokenCounter();
    const spy = vi.spyOn(inner, "count");
    const caching = new CachingCounter(inner, { maxEntries: 2 });
    expect(caching.count("same text")).toBe(caching.count("same text"));
    expect(spy).toHaveBeenCalledTimes(1);
    expect(caching.hits).toBe(1);
    caching.count("b");
    caching.count("c"); // evicts "same text" (least recently used)
    caching.count("same text");
    expect(spy).toHaveBeenCalledTimes(4);
    expect(caching.size).toBe(2);
  });

  it("getCounter of a model with no tokenizer of its own ('grok-3') is a CachingCounter around a TiktokenCounter", () => {
    const counter = getCounter("grok-3");
    expect(counter).toBeInstanceOf(CachingCounter);
    expect(counter.inner).toBeInstanceOf(TiktokenCounter);
    const asInterface: TokenCounter = counter;
    expect(asInterface.count("hello")).toBeGreaterThan(0);
  });
});

describe("bad input", () => {
  it("non-string text is a TypeError; an unknown encoding a RangeError listing the valid names", () => {
    const counter = new TiktokenCounter();
    for (const bad of [42, null, undefined, {}, ["a"]]) {
      expect(() => counter.count(bad as never)).toThrow(TypeError);
      expect(() => new ApproximateCounter().count(bad as never)).toThrow(TypeError);
    }
    expect(() => counter.countMany(["a", 1] as never)).toThrow(/texts\[1\] must be a string/);
    try {
      new TiktokenCounter({ encoding: "gpt2" as never });
      throw new Error("expected a RangeError");
    } catch (error) {
      expect(error).toBeInstanceOf(RangeError);
      expect((error as Error).message).toMatch(/r50k_base, p50k_base, cl100k_base, o200k_base/);
      expect((error as { code?: string }).code).toBe("ERR_CTXWIN_UNKNOWN_ENCODING");
    }
    expect(() => new ApproximateCounter({ tokensPerWord: -1 })).toThrow(RangeError);
    expect(() => new ApproximateCounter({ charsPerToken: Number.NaN })).toThrow(RangeError);
    expect(() => counter.decode([999_999_999])).toThrow(RangeError);
  });
});
