// The one contract between the TypeScript API and the compiled core: the names of `NativeCore`
// (ts/runtime/native.ts) are the names binding/ sets on the addon's exports, and the names the
// built addon and its WebAssembly build really export, each of the kind the interface says. A name
// added on one side only would type-check and build, and fail at the first call.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const require = createRequire(import.meta.url);

type Kind = "function" | "number" | "string";

/** NativeCore's members and the kind of value each is: a method or a constructor is a function. */
function nativeCoreMembers(): Map<string, Kind> {
  const path = join(ROOT, "ts", "runtime", "native.ts");
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  const members = new Map<string, Kind>();
  source.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node) || node.name.text !== "NativeCore") return;
    for (const member of node.members) {
      if (member.name === undefined || !ts.isIdentifier(member.name))
        throw new Error(`NativeCore member without a plain name: ${member.getText()}`);
      const type = ts.isPropertySignature(member) ? member.type?.getText() : undefined;
      members.set(member.name.text, type === "number" || type === "string" ? type : "function");
    }
  });
  return members;
}

/** The names binding/'s C++ sets on the module's exports object (`exports.Set("name", ...)`). */
function bindingExports(): string[] {
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return files(path);
      return /\.(cpp|hpp)$/.test(entry.name) ? [path] : [];
    });
  return files(join(ROOT, "binding")).flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/\bexports\.Set\(\s*"(\w+)"/g)].map((m) => m[1] as string),
  );
}

function kindsOf(core: Record<string, unknown>): Map<string, string> {
  return new Map(Object.keys(core).map((name) => [name, typeof core[name]]));
}

const declared = nativeCoreMembers();
const sorted = (names: Iterable<string>) => [...names].sort();

describe("NativeCore and the binding's exports", () => {
  it("NativeCore declares the names binding/ sets, each once", () => {
    const set = bindingExports();
    expect(declared.size).toBeGreaterThan(10);
    expect(new Set(set).size).toBe(set.length);
    expect(sorted(set)).toEqual(sorted(declared.keys()));
  });

  it("the native addon exports exactly NativeCore's names, each of its kind", () => {
    const addon = join(ROOT, "build", "ctxwin.node");
    expect(existsSync(addon), `${addon} is built by npm test (scripts/bootstrap.mjs)`).toBe(true);
    expect(kindsOf(require(addon) as Record<string, unknown>)).toEqual(declared);
  });

  it("the WebAssembly build exports exactly NativeCore's names, each of its kind", () => {
    const entry = join(ROOT, "prebuilds", "wasm", "ctxwin.cjs");
    expect(existsSync(entry), `${entry} is built by npm test (scripts/bootstrap.mjs)`).toBe(true);
    const module = require(entry) as { emnapiInit(options: { context: unknown; filename: string }): Record<string, unknown> };
    const { getDefaultContext } = require("@emnapi/runtime") as { getDefaultContext(): unknown };
    // emnapiInit returns the one instance of this process (the loader's, when the suite runs on it).
    expect(kindsOf(module.emnapiInit({ context: getDefaultContext(), filename: entry }))).toEqual(declared);
  });
});
