// The docs name no path that does not exist, and the lists of the tree they hold are whole:
//   - every repository path in README.md and docs/*.md, in backticks or as a link, exists;
//   - the layout trees (README's "Layout", architecture.md's native "Layout") name existing
//     entries, every folder of ts/, native/ and binding/, every public header of the core, and no
//     file stem the core does not have; docs/reliability.md names exactly the fuzz targets;
//   - LAYERS (layers.test.ts) holds every folder of ts/ and nothing else, and architecture.md's
//     layer table lists its ranks, in order.
// A rename or a removal that forgets a doc fails here instead of misleading the next reader.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const DOCS = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
const REPO_PATH = /^(ts|native|binding|test|scripts|bench|\.ci)\//;

const entries = (dir: string) => readdirSync(join(ROOT, dir), { withFileTypes: true });
const folders = (dir: string) =>
  entries(dir)
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

/** "a.{hpp,cpp}" -> ["a.hpp", "a.cpp"] (one brace group at a time). */
function expandBraces(path: string): string[] {
  const m = /\{([^{}]*)\}/.exec(path);
  if (!m) return [path];
  return m[1]!.split(",").flatMap((choice) => expandBraces(path.slice(0, m.index) + choice + path.slice(m.index + m[0].length)));
}

/**
 * Whether a path a doc names exists. A placeholder (`<area>`, `...`, `*`) stands for any name: what
 * comes before it must exist. A path without extension may name a file pair by its stem
 * (`binding/js_strings` for .hpp and .cpp).
 */
function exists(path: string): boolean {
  const clean = path.replace(/^\.\//, "").replace(/:\d+(-\d+)?$/, "");
  const wildcard = clean.search(/<|\.\.\.|\*/);
  if (wildcard >= 0) return existsSync(join(ROOT, clean.slice(0, clean.lastIndexOf("/", wildcard) + 1)));
  if (existsSync(join(ROOT, clean))) return true;
  const dir = join(ROOT, dirname(clean));
  const stem = clean.slice(clean.lastIndexOf("/") + 1);
  return !clean.endsWith("/") && existsSync(dir) && readdirSync(dir).some((name) => name.startsWith(`${stem}.`));
}

/** The paths a doc names in backticks or as relative links, relative to the repository. */
function namedPaths(doc: string): string[] {
  const paths: string[] = [];
  for (const m of read(doc).matchAll(/`([^`\n]+)`|\]\(([^)\s]+)\)/g)) {
    if (m[1] !== undefined) {
      const text = m[1].trim();
      if (REPO_PATH.test(text) && !/\s/.test(text)) paths.push(...expandBraces(text));
    } else {
      const target = m[2]!.replace(/#.*$/, "");
      if (target === "" || /^[a-z]+:/.test(target)) continue; // an anchor on the same page, a URL
      paths.push(join(dirname(doc), target));
    }
  }
  return paths;
}

describe("paths the docs name", () => {
  it.each(DOCS)("%s names only paths that exist", (doc) => {
    expect(namedPaths(doc).filter((path) => !exists(path))).toEqual([]);
  });
});

/** The fenced block after `heading` in `doc`. */
function fencedBlockAfter(doc: string, heading: string): string {
  const text = read(doc);
  const at = text.indexOf(`\n${heading}\n`);
  expect(at, `${doc} has a "${heading}" section`).toBeGreaterThan(0);
  const block = /```\n([\s\S]*?)\n```/.exec(text.slice(at));
  return block![1]!;
}

/**
 * The entries of a layout tree: a line indented less than the descriptions' column starts with
 * names ("addon.cpp, exports.hpp", "js_strings.{hpp,cpp}", "history/, summary/"), each under the
 * last folder of a smaller indent. Returns each entry's path and its line's description.
 */
function layoutEntries(block: string): { path: string; description: string }[] {
  const out: { path: string; description: string }[] = [];
  const parents: { indent: number; path: string }[] = [];
  for (const line of block.split("\n")) {
    const indent = line.length - line.trimStart().length;
    if (line.trim() === "" || indent >= 12) {
      if (out.length > 0) out[out.length - 1]!.description += ` ${line.trim()}`;
      continue;
    }
    // Names hold no space but after a comma; a long name leaves one space before its description.
    const [, names = "", description = ""] = /^([^\s,]+(?:,\s*[^\s,]+)*)\s*(.*)$/.exec(line.trim()) ?? [];
    while (parents.length > 0 && parents[parents.length - 1]!.indent >= indent) parents.pop();
    const parent = parents.length > 0 ? parents[parents.length - 1]!.path : "";
    const paths = names
      .split(/,\s*(?![^{]*\})/)
      .flatMap(expandBraces)
      .map((name) => parent + name);
    for (const path of paths) out.push({ path, description });
    if (paths.length === 1 && paths[0]!.endsWith("/")) parents.push({ indent, path: paths[0]! });
  }
  return out;
}

const readmeLayout = layoutEntries(fencedBlockAfter("README.md", "## Layout"));
const nativeBlock = fencedBlockAfter("docs/architecture.md", "### Layout");
const nativeLayout = layoutEntries(nativeBlock);

/** Headers and sources of the core, by area: README's native/<area>/ is include/ctxwin/<area>/ and src/<area>/. */
const inNative = (path: string) => [path, path.replace(/^native\//, "native/include/ctxwin/"), path.replace(/^native\//, "native/src/")];

describe("the layout trees", () => {
  it("README's layout names only what exists", () => {
    expect(readmeLayout.length).toBeGreaterThan(20);
    expect(readmeLayout.map((e) => e.path).filter((path) => !inNative(path).some(exists))).toEqual([]);
  });

  it("README's layout names every folder of ts/, of the core and of binding/", () => {
    const named = new Set(readmeLayout.map((e) => e.path));
    const areas = [...new Set([...folders("native/include/ctxwin"), ...folders("native/src")])];
    const expected = [...folders("ts").map((f) => `ts/${f}/`), ...areas.map((f) => `native/${f}/`)];
    expect(expected.filter((path) => !named.has(path))).toEqual([]);
    // binding/'s areas are listed on its line.
    const binding = readmeLayout.find((e) => e.path === "binding/")!;
    expect(folders("binding").filter((f) => !binding.description.includes(`${f}/`))).toEqual([]);
  });

  it("architecture.md's native layout names only what exists", () => {
    expect(nativeLayout.length).toBeGreaterThan(20);
    expect(nativeLayout.map((e) => e.path).filter((path) => !exists(path))).toEqual([]);
  });

  it("architecture.md's native layout names every area, public header and binding folder", () => {
    const named = new Set(nativeLayout.map((e) => e.path));
    const include = "native/include/ctxwin";
    expect(folders(include).filter((f) => !named.has(`${include}/${f}/`))).toEqual([]);
    expect(folders("binding").filter((f) => !nativeBlock.includes(`${f}/`))).toEqual([]);
    const headers = (dir: string): string[] =>
      entries(dir).flatMap((entry) =>
        entry.isDirectory() ? headers(`${dir}/${entry.name}`) : entry.name.endsWith(".hpp") ? [entry.name.replace(/\.hpp$/, "")] : [],
      );
    expect(headers(include).filter((stem) => !new RegExp(`\\b${stem}\\b`).test(nativeBlock))).toEqual([]);
  });

  it("every file name of the core the layouts write as snake_case exists", () => {
    const stems = new Set<string>();
    const visit = (dir: string) => {
      for (const entry of entries(dir)) {
        if (entry.isDirectory()) visit(`${dir}/${entry.name}`);
        else stems.add(entry.name.replace(/\..*$/, ""));
      }
    };
    ["native", "binding", "test/native", "test/fuzz"].forEach(visit);
    const words = [...`${nativeBlock}\n${fencedBlockAfter("README.md", "## Layout")}`.matchAll(/\b[a-z0-9]+(?:_[a-z0-9]+)+\b/g)].map(
      (m) => m[0],
    );
    expect(words.length).toBeGreaterThan(30);
    expect([...new Set(words)].filter((word) => !stems.has(word))).toEqual([]);
  });

  it("docs/reliability.md names exactly the fuzz targets of test/fuzz/", () => {
    const targets = readdirSync(join(ROOT, "test/fuzz"))
      .filter((name) => name.endsWith("_fuzz.cc"))
      .map((name) => name.replace(/\.cc$/, ""));
    const named = new Set([...read("docs/reliability.md").matchAll(/\b[a-z0-9_]+_fuzz\b/g)].map((m) => m[0]));
    expect(targets.length).toBeGreaterThan(5);
    expect({ unnamed: targets.filter((t) => !named.has(t)), missing: [...named].filter((t) => !targets.includes(t)) }).toEqual({
      unnamed: [],
      missing: [],
    });
  });
});

/** LAYERS as layers.test.ts writes it (read from its source: importing a test file runs its tests). */
function layers(): string[][] {
  const path = join(ROOT, "test/ts/architecture/layers.test.ts");
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  let rows: string[][] | undefined;
  const visit = (node: ts.Node) => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.name.text === "LAYERS" &&
      node.initializer &&
      ts.isArrayLiteralExpression(node.initializer)
    ) {
      rows = node.initializer.elements.map((row) => {
        if (!ts.isArrayLiteralExpression(row)) throw new Error(`a LAYERS row is not an array: ${row.getText()}`);
        return row.elements.map((folder) => {
          if (!ts.isStringLiteral(folder)) throw new Error(`a LAYERS entry is not a string: ${folder.getText()}`);
          return folder.text;
        });
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (rows === undefined) throw new Error("layers.test.ts has no LAYERS array");
  return rows;
}

describe("LAYERS and the architecture guide", () => {
  const rows = layers();

  it("LAYERS holds every folder of ts/ (and the root index.ts), each once, and nothing that does not exist", () => {
    const listed = rows.flat();
    expect(new Set(listed).size).toBe(listed.length);
    const tree = entries("ts")
      .filter((entry) => entry.isDirectory() || entry.name === "index.ts")
      .map((entry) => entry.name);
    expect(listed.sort()).toEqual(tree.sort());
    expect(statSync(join(ROOT, "ts", "index.ts")).isFile()).toBe(true);
  });

  it("architecture.md's layer table lists LAYERS' ranks in order", () => {
    const text = read("docs/architecture.md");
    const table = [...text.matchAll(/^\| (\d+) \| ([^|]+) \|/gm)].map((m) => ({
      rank: Number(m[1]),
      folders: [...m[2]!.matchAll(/`([^`]+)`/g)].map((f) => f[1]!.replace(/\/$/, "")),
    }));
    expect(table.map((row) => row.rank)).toEqual(rows.map((_, i) => i + 1));
    expect(table.map((row) => row.folders)).toEqual(rows);
  });
});
