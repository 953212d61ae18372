// Registering models at run time: one model (its window as contextLength or maxTokens), prefix
// patterns, and whole catalogs in models.dev's JSON format; bad input is a coded TypeError or
// RangeError and registers nothing.
import fc from "fast-check";
import { ContextLimits, registerModel, resolveModel } from "ctxwin";
import { ModelRegistry, listModels, registerCatalog } from "ctxwin/models";
import { describe, expect, it, vi } from "vitest";

const coded = (name: "TypeError" | "RangeError", code: string, message?: RegExp) =>
  expect.objectContaining({ name, code, ...(message ? { message: expect.stringMatching(message) } : {}) });

describe("registering one model", () => {
  it("takes the window as contextLength or maxTokens, whichever the user writes", () => {
    const registry = new ModelRegistry();
    registry.register("acme-small", { contextLength: 16000, maxOutputTokens: 2000 });
    registry.register("acme-large", { maxTokens: 64000, max_output_tokens: 8000, prices: { input: 1, output: 3, cacheRead: 0.1 } });
    registry.register("acme-both", { contextLength: 32000, maxTokens: 32000 });
    expect(registry.resolve("acme-small")).toMatchObject({
      provider: "custom",
      id: "acme-small",
      contextWindow: 16000,
      maxOutput: 2000,
      source: "registered",
      match: "exact",
    });
    expect(registry.resolve("acme-large")).toMatchObject({
      contextWindow: 64000,
      maxOutput: 8000,
      prices: { unit: "USD per 1M tokens", input: 1, output: 3, cacheRead: 0.1 },
    });
    expect(registry.resolve("acme-large")?.prices?.cacheWrite).toBeUndefined();
    expect(registry.resolve("acme-both")?.contextWindow).toBe(32000);
    // Any spelling of the id, and at its provider.
    expect(registry.resolve("ACME_Small")?.id).toBe("acme-small");
    expect(registry.resolve("custom/acme-small")?.id).toBe("acme-small");
    const warn = vi.fn();
    const limits = ContextLimits.forModel("acme-large", {}, { registry, logger: { warn } });
    expect([limits.known, limits.maxTokens, limits.maxOutputTokens, limits.effectiveLimit]).toEqual([true, 64000, 8000, 55000]);
    expect(warn).not.toHaveBeenCalled();
  });

  it("puts a registered model before the catalog's, and a later registration before an earlier one", () => {
    const registry = new ModelRegistry();
    expect(registry.resolve("gpt-4o")?.contextWindow).toBe(128000); // cached before the registration
    registry.register("gpt-4o", { contextLength: 64000 });
    expect(registry.resolve("gpt-4o")?.contextWindow).toBe(64000);
    expect(registry.resolve("gpt-4o-2024-08-06")?.contextWindow).toBe(64000);
    expect(registry.resolve("gpt-4o-mini")?.contextWindow).toBe(128000); // another model
    registry.register("gpt-4o", { contextLength: 32000 });
    expect(registry.resolve("gpt-4o")?.contextWindow).toBe(32000);
    expect(registry.list().filter((m) => m.source === "registered")).toHaveLength(1);
    expect(new ModelRegistry().resolve("gpt-4o")?.contextWindow).toBe(128000);
  });

  it("registers prefix patterns", () => {
    const registry = new ModelRegistry();
    registry.register("acme-ft-*", { contextLength: 8192, provider: "acme" });
    registry.register("acme-ft-long-*", { contextLength: 65536, provider: "acme" });
    expect(registry.resolve("acme-ft-2026-07-01")).toMatchObject({ contextWindow: 8192, match: "pattern", provider: "acme" });
    expect(registry.resolve("Acme-FT-Long-3")).toMatchObject({ contextWindow: 65536, match: "pattern" }); // the longest pattern
    expect(registry.resolve("my-org/acme-ft-7")?.contextWindow).toBe(8192);
    expect(registry.resolve("acme-other")).toBeUndefined();
    // A pattern matches what it names before any catalog rule does.
    registry.register("gpt-4*", { contextLength: 4000 });
    expect(registry.resolve("gpt-4o-mini")?.contextWindow).toBe(4000);
    expect(registry.resolve("gpt-5")?.contextWindow).toBe(400000);
  });

  it("rejects bad input with a coded error and registers nothing", () => {
    const registry = new ModelRegistry();
    const before = registry.list().length;
    expect(() => registry.register(42 as never, { contextLength: 1000 })).toThrow(
      coded("TypeError", "ERR_CTXWIN_INVALID_ARGUMENT", /model must be a string/),
    );
    expect(() => registry.register("  ", { contextLength: 1000 })).toThrow(coded("RangeError", "ERR_CTXWIN_OUT_OF_RANGE"));
    expect(() => registry.register("*", { contextLength: 1000 })).toThrow(coded("RangeError", "ERR_CTXWIN_OUT_OF_RANGE", /prefix/));
    expect(() => registry.register("m".repeat(513), { contextLength: 1000 })).toThrow(
      coded("RangeError", "ERR_CTXWIN_OUT_OF_RANGE", /at most 512 characters/),
    );
    expect(() => registry.register("m", null as never)).toThrow(coded("TypeError", "ERR_CTXWIN_INVALID_ARGUMENT"));
    expect(() => registry.register("m", {})).toThrow(coded("TypeError", "ERR_CTXWIN_INVALID_ARGUMENT", /contextLength or maxTokens/));
    expect(() => registry.register("m", { contextLength: 1000, maxTokens: 2000 })).toThrow(
      coded("RangeError", "ERR_CTXWIN_OUT_OF_RANGE", /disagree/),
    );
    expect(() => registry.register("m", { contextLength: 0 })).toThrow(
      coded("RangeError", "ERR_CTXWIN_OUT_OF_RANGE", /config\.contextLength/),
    );
    expect(() => registry.register("m", { contextLength: 1.5 })).toThrow(coded("RangeError", "ERR_CTXWIN_OUT_OF_RANGE"));
    expect(() => registry.register("m", { contextLength: "8k" as never })).toThrow(coded("TypeError", "ERR_CTXWIN_INVALID_ARGUMENT"));
    expect(() => registry.register("m", { contextLength: 1000, maxOutputTokens: 1000 })).toThrow(
      coded("RangeError", "ERR_CTXWIN_OUT_OF_RANGE", /below the context window/),
    );
    expect(() => registry.register("m", { contextLength: 1000, provider: "a/b" })).toThrow(coded("RangeError", "ERR_CTXWIN_OUT_OF_RANGE"));
    expect(() => registry.register("m", { contextLength: 1000, prices: { input: -1 } })).toThrow(
      coded("RangeError", "ERR_CTXWIN_OUT_OF_RANGE", /config\.prices\.input/),
    );
    expect(() => registry.register("m", { contextLength: 1000, prices: { output: "cheap" as never } })).toThrow(
      coded("TypeError", "ERR_CTXWIN_INVALID_ARGUMENT"),
    );
    expect(registry.list()).toHaveLength(before);
    expect(registry.resolve("m")).toBeUndefined();
  });

  it("resolves any registered model, by its id and at its provider, to exactly what was registered", () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9]{1,8}$/);
    fc.assert(
      fc.property(
        word,
        word,
        fc.integer({ min: 2, max: 2_000_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (provider, name, window, share) => {
          const registry = new ModelRegistry();
          const id = `zz-${name}-x`;
          const output = Math.floor((window - 1) * share);
          registry.register(id, { contextLength: window, maxOutputTokens: output, provider });
          for (const asked of [id, `${provider}/${id}`, id.toUpperCase()]) {
            expect(registry.resolve(asked)).toMatchObject({ provider, id, contextWindow: window, maxOutput: output, source: "registered" });
          }
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe("registering a catalog in models.dev's format", () => {
  const catalog = {
    acme: {
      name: "Acme AI",
      models: {
        "acme-chat-1": {
          name: "Acme Chat 1",
          release_date: "2026-06-01",
          open_weights: true,
          limit: { context: 200000, output: 128000 },
          cost: { input: 2, output: 8, cache_read: 0.2, cache_write: 2.5 },
        },
        "acme-chat-1-mini": { limit: { context: 100000, output: 16000 } },
        "acme-image": { limit: { context: 0, output: 0 } },
      },
    },
  };

  it("adds every model with a window, as an object or as JSON text, and keeps the provider's output limit", () => {
    const registry = new ModelRegistry();
    expect(registry.registerCatalog(catalog)).toBe(2); // the image model has no text window
    expect(registry.resolve("acme/acme-chat-1")).toMatchObject({
      provider: "acme",
      providerName: "Acme AI",
      name: "Acme Chat 1",
      contextWindow: 200000,
      maxOutput: 128000,
      releaseDate: "2026-06-01",
      openWeights: true,
      prices: { input: 2, output: 8, cacheRead: 0.2, cacheWrite: 2.5 },
    });
    // 128,000 output in a 200,000 window: more than half, so 20% is reserved, and the model's limit is kept.
    const limits = ContextLimits.forModel("acme-chat-1", {}, { registry });
    expect([limits.maxOutputTokens, limits.modelMaxOutput]).toEqual([40000, 128000]);
    expect(registry.resolve("acme-chat-1-mini")?.contextWindow).toBe(100000);
    const text = new ModelRegistry();
    expect(text.registerCatalog(JSON.stringify({ providers: catalog }))).toBe(2); // catalog.json's wrapper
    expect(text.resolve("acme-chat-1")?.contextWindow).toBe(200000);
  });

  it("registers all of a catalog or, when any value is wrong, none of it", () => {
    const registry = new ModelRegistry();
    const before = registry.list().length;
    const bad = {
      acme: { models: { "acme-good": { limit: { context: 1000 } }, "acme-bad": { limit: { context: 1000 }, cost: { input: -1 } } } },
    };
    expect(() => registry.registerCatalog(bad)).toThrow(
      coded("RangeError", "ERR_CTXWIN_OUT_OF_RANGE", /catalog\["acme"\]\.models\["acme-bad"\]\.cost\.input must be a price >= 0/),
    );
    expect(registry.resolve("acme-good")).toBeUndefined();
    expect(registry.list()).toHaveLength(before);
    expect(() => registry.registerCatalog("{ not json")).toThrow(coded("TypeError", "ERR_CTXWIN_INVALID_ARGUMENT", /does not parse/));
    expect(() => registry.registerCatalog([] as never)).toThrow(coded("TypeError", "ERR_CTXWIN_INVALID_ARGUMENT"));
    expect(() => registry.registerCatalog(7 as never)).toThrow(coded("TypeError", "ERR_CTXWIN_INVALID_ARGUMENT"));
    expect(() => registry.registerCatalog({ acme: { models: { m: { limit: { context: 2 ** 32 } } } } })).toThrow(
      coded("RangeError", "ERR_CTXWIN_OUT_OF_RANGE", /limit\.context/),
    );
    expect(() => registry.registerCatalog({ acme: { models: { m: {} } } })).toThrow(
      coded("TypeError", "ERR_CTXWIN_INVALID_ARGUMENT", /\.limit must be an object/),
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => registry.registerCatalog(cyclic as never)).toThrow(coded("TypeError", "ERR_CTXWIN_INVALID_ARGUMENT", /JSON-serializable/));
    expect(registry.list()).toHaveLength(before);
  });

  it("registers for everyone through registerModel and registerCatalog", () => {
    registerModel("zz-registration-test-model", { maxTokens: 12345 });
    expect(resolveModel("zz-registration-test-model")?.contextWindow).toBe(12345);
    expect(ContextLimits.forModel("zz-registration-test-model").maxTokens).toBe(12345);
    expect(registerCatalog({ zzprovider: { models: { "zz-catalog-test-model": { limit: { context: 54321, output: 321 } } } } })).toBe(1);
    expect(listModels({ provider: "zzprovider" }).map((m) => [m.id, m.contextWindow, m.maxOutput])).toEqual([
      ["zz-catalog-test-model", 54321, 321],
    ]);
    expect(listModels({ search: "ZZ-REGISTRATION" }).map((m) => m.id)).toEqual(["zz-registration-test-model"]);
    expect(() => listModels({ provider: 3 as never })).toThrow(coded("TypeError", "ERR_CTXWIN_INVALID_ARGUMENT"));
  });
});
