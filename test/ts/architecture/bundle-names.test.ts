// dist/ is esbuild's bundles of ts/ (scripts/bundle-esm.mjs), and a bundle renames what it must:
// a class that refers to itself becomes `var X = class _X`, and two modules' top-level names that
// collide get a number. Node's build gives classes their names back; this holds every function and
// class each Node entry point exports to the name it is exported under (`counter.constructor.name`,
// an error's class in a stack trace show it). The web build does not restore them: the statements
// would keep every class in an application's bundle (scripts/bundle-esm.mjs says by how much), and
// its minifier renames classes anyway; there, only the functions are held to their names.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, unknown> };

/** Every ESM file package.json's exports name under `condition` (the data modules aside). */
const entriesOf = (condition: "import" | "browser") => [
  ...new Set(
    Object.values(pkg.exports).flatMap((target) => {
      if (typeof target !== "object" || target === null) return [];
      const file = (target as Record<string, { default?: string } | undefined>)[condition]?.default;
      return typeof file === "string" && file.startsWith("./dist/") ? [file] : [];
    }),
  ),
];
const nodeEntries = entriesOf("import");
const webEntries = entriesOf("browser");

/** The exported functions of `entry` (classes too unless `plainOnly`) whose name is not their exported name. */
async function misnamed(entry: string, plainOnly: boolean): Promise<string[]> {
  const module = (await import(join(ROOT, entry))) as Record<string, unknown>;
  const functions = Object.entries(module).filter(([, value]) => typeof value === "function");
  expect(functions.length).toBeGreaterThan(0);
  return functions
    .filter(([, value]) => !plainOnly || !/^class\b/.test(Function.prototype.toString.call(value)))
    .filter(([name, value]) => (value as { name: string }).name !== name)
    .map(([name, value]) => `${name}: ${(value as { name: string }).name}`);
}

describe("the bundles' names", () => {
  it("cover the Node and web entry points", () => {
    expect(nodeEntries).toEqual(expect.arrayContaining(["./dist/index.js", "./dist/tokens/node.js", "./dist/adapters/ai-sdk/index.js"]));
    expect(webEntries).toEqual(expect.arrayContaining(["./dist/web/index.js", "./dist/tokens/index.js"]));
  });

  it.each(nodeEntries)("%s (Node): every exported function and class has the name it is exported under", async (entry) => {
    expect(await misnamed(entry, false)).toEqual([]);
  });

  it.each(webEntries)("%s (web): every exported function that is not a class has the name it is exported under", async (entry) => {
    expect(await misnamed(entry, true)).toEqual([]);
  });
});
