// The layers of ts/. Every folder has a rank, and a file imports only from its own folder or from
// a folder of a lower rank: the API reads from the bottom up, and a change in a low folder never
// has to look at a higher one. No file reaches itself again through its imports (a circle), and
// no file is over 500 lines. LAYERS is the one place the order is written down;
// docs/architecture.md says what each layer holds.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../ts");

/** Lowest first. Folders on one row share a rank and may not import each other. */
const LAYERS: ReadonlyArray<readonly string[]> = [
  ["runtime"], // the core's loader, coded errors, logger, concurrency
  ["messages"], // message types and shapes, metadata reading, roles, the omission marker
  ["catalog"], // every model's window, output limit and prices; the one model-id resolver
  ["tokens"], // counters, counting whole requests and each message
  ["models"], // summary models and the extractive summarizer
  ["agent-threads"], // the thread manager for agent loops written against the reference API (SPEC-08)
  ["budget", "truncation"], // limits, budget, usage anchoring and calibration, the tracker; the truncation strategies
  ["compaction"], // tool-result compaction, summaries, the compaction levels and their orchestrator
  ["session"], // export/import, session stores, the session log and the manager's link to it
  ["cost"], // provider prompt-cache models, prices per request and session, cache hints, cache-aware timing
  ["context"], // MessageContextManager and its parts
  ["recall", "report"], // what compaction took, read back by id (the originals' cache, the session log, the recall tool's logic); the session report (a log as an HTML page)
  ["adapters", "cli"], // the framework adapters; the command line
  ["index.ts", "web"], // the package's root; the web entry (browsers, Workers, edge runtimes)
];
const MAX_LINES = 500;

const RANK = new Map(LAYERS.flatMap((row, rank) => row.map((folder) => [folder, rank] as const)));

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/**
 * The relative module specifiers of a source: static imports and re-exports (type-only ones
 * included: a type is a dependency too) and dynamic `import("...")` of a string.
 */
export function importsOf(source: string): string[] {
  // Comments may quote code; strings are left alone (a specifier is one).
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const specifiers: string[] = [];
  for (const m of code.matchAll(/\b(?:import|export)\s+(?:type\s+)?(?:[\w*$\s{},]*?\s+from\s*)?["']([^"']+)["']/g))
    specifiers.push(m[1] as string);
  for (const m of code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) specifiers.push(m[1] as string);
  return specifiers.filter((specifier) => specifier.startsWith("."));
}

/** The folder a file of ts/ belongs to ("index.ts" for the root file itself). */
function folderOf(file: string): string {
  const parts = relative(ROOT, file).split(sep);
  return parts[0] as string;
}

// The only files outside ts/ that ts/ imports: the WebAssembly build for the web, which the web
// loader and entries import as modules (scripts/build-wasm.mjs makes them).
const WEB_BUILD = resolve(ROOT, "..", "prebuilds", "wasm-web");
const isWebBuild = (target: string) => target.startsWith(WEB_BUILD + sep);

const files = tsFiles(ROOT);
const imports = new Map<string, string[]>(
  files.map((file) => [
    file,
    importsOf(readFileSync(file, "utf8")).map((specifier) => resolve(dirname(file), specifier.replace(/\.js$/, ".ts"))),
  ]),
);
const graph = new Map<string, string[]>([...imports].map(([file, targets]) => [file, targets.filter((target) => !isWebBuild(target))]));
const name = (file: string) => relative(ROOT, file).split(sep).join("/");

/** Strongly connected components of more than one file, or a file that imports itself (Tarjan). */
function circles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(component.map(name).sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe("the layers of ts/", () => {
  it("reads the imports a file can have", () => {
    const source = [
      'import { a } from "./a.js";',
      'import type { B } from "../b/b.js";',
      'import * as c from "./c.js";',
      'import "./side-effect.js";',
      'export { d } from "./d.js";',
      'export type { E } from "../e/e.js";',
      'export * from "./f/index.js";',
      'const g = await import("../g/g.js");',
      'import { node } from "node:fs";',
      '// import { commented } from "./commented.js";',
    ].join("\n");
    expect(importsOf(source)).toEqual([
      "./a.js",
      "../b/b.js",
      "./c.js",
      "./side-effect.js",
      "./d.js",
      "../e/e.js",
      "./f/index.js",
      "../g/g.js",
    ]);
  });

  it("gives every folder of ts/ a rank", () => {
    const folders = [...new Set(files.map(folderOf))].sort();
    expect(folders.filter((folder) => !RANK.has(folder))).toEqual([]);
    expect([...RANK.keys()].filter((folder) => !folders.includes(folder))).toEqual([]);
  });

  it("imports only from the same folder or a lower layer", () => {
    const climbs: string[] = [];
    for (const [file, targets] of graph) {
      const from = folderOf(file);
      for (const target of targets) {
        const to = folderOf(target);
        if (to === from) continue;
        if ((RANK.get(to) ?? Infinity) >= (RANK.get(from) ?? -Infinity))
          climbs.push(`${name(file)} -> ${name(target)} (${from} may not import ${to})`);
      }
    }
    expect(climbs).toEqual([]);
  });

  it("reaches outside ts/ only for the WebAssembly build, from the runtime's web loader and the web entries", () => {
    const outside = [...imports].flatMap(([file, targets]) => targets.filter(isWebBuild).map(() => folderOf(file)));
    expect(outside.length).toBeGreaterThan(0);
    expect([...new Set(outside)].sort()).toEqual(["runtime", "web"]);
  });

  it("imports only files that exist", () => {
    const missing = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => !graph.has(target)).map((target) => `${name(file)} -> ${relative(ROOT, target)}`),
    );
    expect(missing).toEqual([]);
  });

  it("has no circle of files", () => {
    expect(circles(graph)).toEqual([]);
  });

  it("finds a circle when there is one", () => {
    const edges = new Map([
      ["/a.ts", ["/b.ts"]],
      ["/b.ts", ["/c.ts"]],
      ["/c.ts", ["/a.ts"]],
      ["/d.ts", ["/a.ts"]],
    ]);
    expect(circles(edges).map((c) => c.length)).toEqual([3]);
  });

  it(`has no file over ${MAX_LINES} lines`, () => {
    const lineCount = (text: string) => (text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0));
    const long = files.map((file) => [name(file), lineCount(readFileSync(file, "utf8"))] as const).filter(([, lines]) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});
