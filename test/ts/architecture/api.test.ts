// The package's public API is the reviewed list in docs/api.md: each entry point (the root and
// every subpath of package.json's exports) exports exactly the names that page lists for it,
// values and types alike, as TypeScript sees them. A name exported by accident, or one that
// disappears, fails here until the page says so. The root stays a surface a newcomer can hold:
// under 60 names, types included; the rest is under the capability subpaths.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** The most names the root may export, types included (issue 37: a first use needs about five). */
const ROOT_LIMIT = 60;

/** The names docs/api.md lists under each entry point's heading (`## \`ctxwin/...\``). */
export function documentedExports(page: string): Map<string, string[]> {
  const entries = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of page.split("\n")) {
    const heading = /^## `([^`]+)`/.exec(line);
    if (heading) {
      current = [];
      entries.set(heading[1] as string, current);
      continue;
    }
    if (line.startsWith("## ")) current = undefined;
    // "- `Name` (kind): ..." or "- `A`, `B`, `C`: ..."
    const item = /^- ((?:`[\w$]+`(?:, )?)+)(?: \(|:)/.exec(line);
    if (item && current) for (const name of (item[1] as string).matchAll(/`([\w$]+)`/g)) current.push(name[1] as string);
  }
  return entries;
}

type ExportTarget = string | { [condition: string]: ExportTarget };

/** The file an ESM import in Node gets from an exports target (conditions `import`, then `default`). */
function esmFile(target: ExportTarget | undefined): string | undefined {
  if (target === undefined || typeof target === "string") return target;
  return esmFile(target.import ?? target.default);
}

/** Each entry point of package.json's exports, as its TypeScript source. */
function entryPoints(): Map<string, string> {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; exports: Record<string, ExportTarget> };
  const out = new Map<string, string>();
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const file = esmFile(target);
    if (file === undefined || !file.startsWith("./dist/")) continue;
    out.set(
      subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`,
      join(ROOT, file.replace(/^\.\/dist\//, "ts/").replace(/\.js$/, ".ts")),
    );
  }
  return out;
}

let checked: Map<string, string[]> | undefined;

/** Each entry point's exported names, sorted, values and types alike, as TypeScript sees them (one program for both tests). */
function exportsOf(entries: Map<string, string>): Map<string, string[]> {
  if (checked !== undefined) return checked;
  const program = ts.createProgram([...entries.values()], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const out = new Map<string, string[]>();
  for (const [entry, file] of entries) {
    const source = program.getSourceFile(file);
    const symbol = source && checker.getSymbolAtLocation(source);
    expect(symbol, `${entry}: ${file}`).toBeDefined();
    out.set(
      entry,
      checker
        .getExportsOfModule(symbol as ts.Symbol)
        .map((s) => s.name)
        .sort(),
    );
  }
  checked = out;
  return out;
}

/** The move table of docs/api.md ("## Moved from the root"): rows "| `Name` | `ctxwin/sub` |". */
export function movedFromRoot(page: string): Map<string, string> {
  const moved = new Map<string, string>();
  const section = page.split(/^## /m).find((part) => part.startsWith("Moved from the root"));
  for (const row of (section ?? "").matchAll(/^\| ((?:`[\w$]+`(?:, )?)+) \| `(ctxwin\/[\w/-]+)` \|/gm)) {
    for (const name of (row[1] as string).matchAll(/`([\w$]+)`/g)) moved.set(name[1] as string, row[2] as string);
  }
  return moved;
}

describe("the public API", () => {
  it("reads the documented lists", () => {
    const page = [
      "## `pkg`",
      "- `A` (class): an a.",
      "- `B`, `C`: as above.",
      "not a line",
      "## Left the root",
      "- `D` (class): gone.",
    ].join("\n");
    expect(documentedExports(page)).toEqual(new Map([["pkg", ["A", "B", "C"]]]));
  });

  it("reads the move table", () => {
    const page = [
      "## `pkg`",
      "| `A` | `ctxwin/x` |",
      "## Moved from the root",
      "| name | subpath |",
      "|---|---|",
      "| `B`, `C` | `ctxwin/y` |",
      "| `D` | `ctxwin/z-w` |",
      "## Next",
    ].join("\n");
    expect(movedFromRoot(page)).toEqual(
      new Map([
        ["B", "ctxwin/y"],
        ["C", "ctxwin/y"],
        ["D", "ctxwin/z-w"],
      ]),
    );
  });

  it("exports from each entry point exactly what docs/api.md lists for it", { timeout: 120_000 }, () => {
    const entries = entryPoints();
    const documented = documentedExports(readFileSync(join(ROOT, "docs", "api.md"), "utf8"));
    expect([...documented.keys()].sort()).toEqual([...entries.keys()].sort());
    const exported = exportsOf(entries);
    for (const [entry, names] of exported) {
      expect({ entry, names }).toEqual({ entry, names: [...(documented.get(entry) ?? [])].sort() });
    }
  });

  it(`keeps the root under ${ROOT_LIMIT} names, and every name that left it under a subpath`, { timeout: 120_000 }, () => {
    const exported = exportsOf(entryPoints());
    const root = exported.get("ctxwin") ?? [];
    expect(root.length).toBeGreaterThan(0);
    expect(root.length).toBeLessThan(ROOT_LIMIT);
    // The move table: each name that left the root, and the subpath that exports it now.
    const moved = movedFromRoot(readFileSync(join(ROOT, "docs", "api.md"), "utf8"));
    expect(moved.size).toBeGreaterThan(0);
    for (const [name, subpath] of moved) {
      expect(root, `${name} is still at the root`).not.toContain(name);
      expect(exported.get(subpath) ?? [], `${name} -> ${subpath}`).toContain(name);
    }
  });
});
