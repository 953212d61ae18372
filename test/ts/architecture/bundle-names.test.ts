// dist/ is esbuild's bundles of ts/ (scripts/bundle-esm.mjs), and a bundle renames what it must:
// a class that refers to itself becomes `var X = class _X`, and two modules' top-level names that
// collide get a number. The build gives classes their names back; this holds every function and
// class each entry point exports, in the Node build and the web build, to the name it is exported
// under (`counter.constructor.name`, an error's class in a stack trace, a user's own `instanceof`
// messages all show it).
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, unknown> };

/** Every ESM file package.json's exports name under the `import` and `browser` conditions (the data modules aside). */
const entries = [
  ...new Set(
    Object.values(pkg.exports).flatMap((target) => {
      if (typeof target !== "object" || target === null) return [];
      const conditions = target as Record<string, { default?: string } | undefined>;
      return [conditions.import?.default, conditions.browser?.default].filter(
        (file): file is string => typeof file === "string" && file.startsWith("./dist/"),
      );
    }),
  ),
];

describe("the bundles' names", () => {
  it("cover the Node and web entry points", () => {
    expect(entries).toEqual(
      expect.arrayContaining(["./dist/index.js", "./dist/tokens/node.js", "./dist/web/index.js", "./dist/tokens/index.js"]),
    );
  });

  it.each(entries)("%s: every exported function and class has the name it is exported under", async (entry) => {
    const module = (await import(join(ROOT, entry))) as Record<string, unknown>;
    const functions = Object.entries(module).filter(([, value]) => typeof value === "function");
    expect(functions.length).toBeGreaterThan(0);
    expect(
      functions
        .filter(([name, value]) => (value as { name: string }).name !== name)
        .map(([name, value]) => `${name}: ${(value as { name: string }).name}`),
    ).toEqual([]);
  });
});
