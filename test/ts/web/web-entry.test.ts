// The web entry (the package's root under the browser, worker, workerd and edge-light export
// conditions) and the capability subpaths' web variants: what each condition resolves to, what
// they export (the Node entry's names less what needs Node, plus the root's init), and the whole
// module graph as built in dist/, walked by esbuild for each condition: no `node:` module and no
// Node built-in is reachable from it. dist/ holds bundles (scripts/bundle-esm.mjs): which of ts/'s
// modules a bundle or chunk holds is read from the map the build writes, build/dist-modules.json. The runtimes themselves
// are tested from the packed tarball by test/web/run.mjs.
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  exports: Record<string, Record<string, unknown>>;
  peerDependencies: Record<string, string>;
};
// The optional peers (`ai` for summaries with an AI SDK model, ...) are the application's own
// packages, installed and bundled by its choice: the graph stops at them. ctxwin and what it
// installs must reach no Node module.
const peers = new Set(Object.keys(pkg.peerDependencies));

/** What needs Node: the JSONL file and Redis session stores and the file store's error type (the root has the file store; ctxwin/session all). */
const NODE_ONLY = [
  "FileSessionStore",
  "FileSessionStoreOptions",
  "SessionIoError",
  "RedisSessionStore",
  "RedisSessionStoreOptions",
  "RedisCommandClient",
  "RedisDurability",
];

const WEB_CONDITIONS: Array<[condition: string, conditions: string[], entry: string]> = [
  ["browser", ["browser"], "./dist/web/index.js"],
  ["worker", ["worker"], "./dist/web/index.js"],
  ["workerd", ["workerd", "worker", "browser"], "./dist/web/workerd.js"],
  ["edge-light", ["edge-light", "worker", "browser"], "./dist/web/edge-light.js"],
];

/** The capability subpaths: every export with a web variant besides the root (the adapters and the CLI have none). */
const CAPABILITIES = Object.entries(pkg.exports)
  .filter(([key, target]) => key !== "." && typeof target === "object" && "browser" in target)
  .map(([key, target]) => ({ subpath: `ctxwin/${key.slice(2)}`, target: target as Record<string, { types: string; default: string }> }));

const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** For each file of dist/'s ESM build (relative to dist/), the modules of ts/ it holds ("runtime/web-loader.js"). */
const bundled = JSON.parse(readFileSync(join(ROOT, "build", "dist-modules.json"), "utf8")) as Record<string, string[]>;

/**
 * Every module specifier esbuild resolves while bundling the package's root for `conditions`, the
 * files it bundles, and the modules of ts/ those of dist/ hold. The packages the root imports are followed too (not the optional peers),
 * unless `ownFilesOnly`.
 */
async function graphOf(conditions: string[], ownFilesOnly = false): Promise<{ specifiers: string[]; files: string[]; modules: string[] }> {
  const specifiers: string[] = [];
  const record: Plugin = {
    name: "record",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        specifiers.push(args.path);
        if (/\.wasm(\?module)?$/.test(args.path) || builtins.has(args.path) || peers.has(args.path))
          return { path: args.path, external: true };
        if (ownFilesOnly && !/^(\.|\/|ctxwin(\/|$))/.test(args.path)) return { path: args.path, external: true };
        return undefined;
      });
    },
  };
  const result = await build({
    stdin: {
      contents: [
        'export * from "ctxwin"; export { default as o200k } from "ctxwin/data/o200k_base";',
        ...CAPABILITIES.map(({ subpath }, i) => `export * as capability${i} from "${subpath}";`),
      ].join("\n"),
      resolveDir: ROOT,
      loader: "js",
    },
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    conditions,
    mainFields: ["browser", "module", "main"],
    metafile: true,
    logLevel: "silent",
    plugins: [record],
  });
  const files = Object.keys(result.metafile.inputs).map((file) => relative(ROOT, resolve(ROOT, file)));
  const modules = files.flatMap((file) => (file.startsWith("dist/") ? (bundled[file.slice("dist/".length)] ?? []) : []));
  return { specifiers, files, modules };
}

describe("the web entry", () => {
  it.each(WEB_CONDITIONS)("is what the %s condition picks for the root", (condition, _conditions, entry) => {
    expect((pkg.exports["."]?.[condition] as { default?: string } | undefined)?.default).toBe(entry);
  });

  it("comes before the Node entry in the root's export conditions", () => {
    const order = Object.keys(pkg.exports["."] ?? {});
    for (const [condition] of WEB_CONDITIONS) expect(order.indexOf(condition)).toBeLessThan(order.indexOf("import"));
  });

  it("exports the root's API without what needs Node, and init", { timeout: 120_000 }, () => {
    const files = ["index.ts", "web/index.ts", "web/workerd.ts", "web/edge-light.ts"].map((file) => join(ROOT, "ts", file));
    const program = ts.createProgram(files, {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
    });
    const checker = program.getTypeChecker();
    const exportsOf = (file: string) =>
      checker
        .getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file) as ts.SourceFile) as ts.Symbol)
        .map((s) => s.name)
        .sort();
    const [root, ...web] = files.map(exportsOf) as [string[], ...string[][]];
    expect(root).toContain("init");
    expect(root).toContain("FileSessionStore");
    for (const names of web) expect(names).toEqual(root.filter((name) => !NODE_ONLY.includes(name)));
  });

  it("has capability subpaths, each with a web variant under every web condition, before its Node entry", () => {
    expect(CAPABILITIES.map(({ subpath }) => subpath)).toEqual(
      expect.arrayContaining(["ctxwin/tokens", "ctxwin/session", "ctxwin/context"]),
    );
    for (const { subpath, target } of CAPABILITIES) {
      const order = Object.keys(target);
      for (const [condition] of WEB_CONDITIONS) {
        expect(order.indexOf(condition), `${subpath} ${condition}`).toBeLessThan(order.indexOf("import"));
        expect(target[condition]?.default, `${subpath} ${condition}`).not.toBe(target.import?.default);
        expect(target[condition]?.default, `${subpath} ${condition}`).toMatch(/^\.\/dist\/[a-z-]+\/(index|portable)\.js$/);
      }
    }
  });

  it("exports from each capability subpath's web variant its Node entry's names less what needs Node", { timeout: 120_000 }, () => {
    const source = (file: string) => join(ROOT, file.replace(/^\.\/dist\//, "ts/").replace(/\.js$/, ".ts"));
    const pairs = CAPABILITIES.map(({ subpath, target }) => ({
      subpath,
      node: source(target.import?.default as string),
      web: source(target.browser?.default as string),
    }));
    const program = ts.createProgram(
      pairs.flatMap(({ node, web }) => [node, web]),
      {
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        strict: true,
        skipLibCheck: true,
        noEmit: true,
      },
    );
    const checker = program.getTypeChecker();
    const exportsOf = (file: string) =>
      checker
        .getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file) as ts.SourceFile) as ts.Symbol)
        .map((s) => s.name)
        .sort();
    for (const { subpath, node, web } of pairs) {
      const names = exportsOf(node);
      expect(names.length, subpath).toBeGreaterThan(0);
      if (subpath === "ctxwin/session") expect(names).toEqual(expect.arrayContaining(NODE_ONLY));
      expect({ subpath, names: exportsOf(web) }).toEqual({ subpath, names: names.filter((name) => !NODE_ONLY.includes(name)) });
    }
  });

  it.each(WEB_CONDITIONS)("reaches no Node module under the %s condition", { timeout: 60_000 }, async (_condition, conditions, entry) => {
    const { specifiers, files, modules } = await graphOf(conditions);
    expect(files).toContain(entry.slice(2));
    expect(modules).toContain("runtime/web-loader.js");
    for (const { target } of CAPABILITIES) expect(files).toContain((target[_condition]?.default ?? "").slice(2));
    expect(modules.filter((module) => /^(runtime\/node-loader|session\/(file|redis)-store|cli\/)/.test(module))).toEqual([]);
    expect(specifiers.filter((specifier) => builtins.has(specifier))).toEqual([]);
  });

  it("lets the Node entry reach its loader", async () => {
    const { files, modules } = await graphOf(["node"], true);
    expect(files).toContain("dist/index.js");
    expect(modules).toContain("runtime/node-loader.js");
  });
});
