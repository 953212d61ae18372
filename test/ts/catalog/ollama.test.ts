// Ollama's library ids resolve to the model they name, with its real context length, and the
// limits plan against the context an Ollama server runs (num_ctx, 4096 by Ollama's documented
// default below 24 GiB of VRAM) unless `numCtx` says otherwise, with one warning (issue 36:
// "mistral:7b" resolved to Mistral's hosted open-mistral-7b, an 8,000 window for a 32K model, and
// "llama3.1:8b" planned 128,000 tokens that the server cuts silently).
import { describe, expect, it } from "vitest";
import { ContextLimits, MessageContextManager, registerModel, resolveModel } from "ctxwin";

const logger = () => {
  const warnings: string[] = [];
  return { warnings, warn: (m: string) => void warnings.push(m) };
};

describe("Ollama library ids", () => {
  it.each([
    ["mistral:7b", "mistral:7b", 32768],
    ["mistral:7b-instruct-q4_K_M", "mistral:7b-instruct-q4_K_M", 32768],
    ["llama3.1:8b", "llama3.1:8b", 131072],
    ["qwen2.5:7b", "qwen2.5:7b", 32768],
    ["qwen3:8b", "qwen3:8b", 40960],
    ["gemma3:1b", "gemma3:1b", 32768],
    ["gemma3:12b", "gemma3:12b", 131072],
    ["ollama/llama3.1:8b", "llama3.1:8b", 131072],
    ["ollama/mistral", "mistral:latest", 32768],
  ])("%s is Ollama's %s with a %i-token context", (requested, id, context) => {
    const model = resolveModel(requested);
    expect(model).toMatchObject({ provider: "ollama", id: id.toLowerCase(), contextWindow: context, openWeights: true });
    expect(model?.id).not.toMatch(/open-mistral|meta\.llama|instruct-v1/);
  });

  it("leaves a bare name, another provider's id and a registered id alone", () => {
    expect(resolveModel("mistral")?.provider).toBe("mistral"); // Mistral's API
    expect(resolveModel("openrouter/mistralai/mistral-7b-instruct")?.provider).not.toBe("ollama");
    registerModel("llama3:8b-custom", { contextLength: 65536 });
    expect(resolveModel("llama3:8b-custom")).toMatchObject({ source: "registered", contextWindow: 65536 });
  });

  it("plans against Ollama's default num_ctx, and says so once", () => {
    const log = logger();
    const first = new MessageContextManager({ model: "llama3.1:8b", logger: log });
    const second = new MessageContextManager({ model: "llama3.1:8b", logger: log });
    expect(first.limits.maxTokens).toBe(4096);
    expect(second.limits.maxTokens).toBe(4096);
    expect(log.warnings).toHaveLength(1);
    expect(log.warnings[0]).toMatch(/"llama3\.1:8b" is planned against the 4096-token context an Ollama server runs by default/);
    expect(log.warnings[0]).toContain("pass numCtx");
    // Requests stop growing well inside what the server keeps.
    for (let i = 0; i < 200; i++) first.addMessage({ role: i % 2 ? "assistant" : "user", content: `message ${i} `.repeat(20) });
    expect(first.tokenUsage).toBeLessThanOrEqual(first.limits.effectiveLimit);
  });

  it("numCtx (or a window, or a cap) says what the server runs: no warning", () => {
    const log = logger();
    expect(new MessageContextManager({ model: "llama3.1:8b", limits: { numCtx: 32768 }, logger: log }).limits.maxTokens).toBe(32768);
    expect(ContextLimits.forModel("mistral:7b", { numCtx: 65536 }, { logger: log }).maxTokens).toBe(32768); // the model's own length caps it
    expect(ContextLimits.forModel("qwen2.5:7b", { maxTokens: 16384 }, { logger: log }).maxTokens).toBe(16384);
    expect(ContextLimits.forModel("qwen2.5:7b", { contextLength: 8192 }, { logger: log }).maxTokens).toBe(8192);
    expect(log.warnings).toEqual([]);
    expect(() => ContextLimits.forModel("llama3.1:8b", { numCtx: 0 })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_OUT_OF_RANGE" }),
    );
    // A hosted model is not an Ollama one: numCtx is a cap there too, and nothing is said without it.
    expect(ContextLimits.forModel("gpt-4o", {}, { logger: log }).maxTokens).toBe(128000);
    expect(log.warnings).toEqual([]);
  });
});
