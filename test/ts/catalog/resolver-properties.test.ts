// Invariants of the model-id resolver over the whole catalog and over generated spellings of its
// ids (fast-check): every entry is found by its provider and id; case, separators and a provider
// prefix never change which entry an id finds; a date never moves an id to another model; and no
// input, however hostile, throws or finds an entry without a window.
import fc from "fast-check";
import { resolveModel } from "ctxwin";
import { listModels, type ModelEntry } from "ctxwin/models";
import { describe, expect, it } from "vitest";

const catalog = listModels().filter((m) => m.source === "catalog" || m.source === "supplement");
// Plain ids of the models' makers: the ids users write without a provider's packaging.
const plain = catalog.filter(
  (m) => /^[a-z][a-z0-9.-]*$/.test(m.id) && ["openai", "anthropic", "google", "xai", "mistral", "deepseek"].includes(m.provider),
);
const entryOf = (m: Pick<ModelEntry, "provider" | "id"> | undefined) => (m ? `${m.provider}/${m.id}` : "(unknown)");

describe("the resolver over the catalog", () => {
  it("finds every entry by its provider and its id", () => {
    const lost = catalog.filter((m) => {
      const found = resolveModel(`${m.provider}/${m.id}`);
      // Two spellings of one id at one provider are one entry to the resolver: either will do.
      return !found || found.provider !== m.provider || found.id.toLowerCase() !== m.id.toLowerCase();
    });
    expect(lost.map(entryOf)).toEqual([]);
  });

  it("finds every plain id of a maker as that maker's entry", () => {
    const moved = plain.filter((m) => entryOf(resolveModel(m.id)) !== entryOf(m));
    expect(moved.map(entryOf)).toEqual([]);
  });

  it("does not care about case, separators or a provider prefix", () => {
    const spell = fc.record({
      model: fc.constantFrom(...plain),
      upper: fc.boolean(),
      separator: fc.constantFrom("-", "_", " "),
      prefix: fc.boolean(),
    });
    fc.assert(
      fc.property(spell, ({ model, upper, separator, prefix }) => {
        let id = model.id.replace(/-/g, separator);
        if (upper) id = id.toUpperCase();
        if (prefix) id = `${model.provider}/${id}`;
        expect(entryOf(resolveModel(id)), id).toBe(entryOf(resolveModel(model.id)));
      }),
      { numRuns: 300 },
    );
  });

  it("keeps a dated id on its own model", () => {
    const dates = fc.tuple(fc.integer({ min: 2024, max: 2030 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }));
    fc.assert(
      // Ids without a date of their own ("-2411", "-preview-05-06", "-latest").
      fc.property(fc.constantFrom(...plain.filter((m) => !/\d{4}|-\d\d-\d\d$|-latest$/.test(m.id))), dates, (model, [y, mo, d]) => {
        const date = `${y}${String(mo).padStart(2, "0")}${String(d).padStart(2, "0")}`;
        const dated = resolveModel(`${model.id}-${date}`);
        // The same model, or a dated entry of the same model (the newest when the date is unknown).
        expect(dated, `${model.id}-${date}`).toBeDefined();
        expect(
          (dated as ModelEntry).id.startsWith(model.id) || model.id.startsWith((dated as ModelEntry).id),
          `${model.id}-${date} -> ${entryOf(dated)}`,
        ).toBe(true);
        expect((dated as ModelEntry).provider).toBe(model.provider);
      }),
      { numRuns: 300 },
    );
  });

  it("never throws and never finds an entry without a window, whatever the input", () => {
    const hostile = fc.oneof(
      fc.string({ unit: "binary", maxLength: 80 }),
      fc.string({ unit: fc.constantFrom(..."./:@-_ *v0123456789abclaudegptllama".split("")), maxLength: 60 }),
      fc.constantFrom(...plain).chain((m) => fc.string({ maxLength: 12 }).map((tail) => `${m.id}${tail}`)),
    );
    fc.assert(
      fc.property(hostile, (id) => {
        const found = resolveModel(id);
        if (found) {
          expect(found.contextWindow).toBeGreaterThan(0);
          expect(found.requested).toBe(id);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
