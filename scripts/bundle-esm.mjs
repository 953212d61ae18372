// The ESM build: tsc's modules, one file each, bundled by esbuild into the package's entry points
// (every `./dist/...js` that package.json "exports" and "bin" name, at the same paths) and the
// chunks they share (dist/chunks/). Code splitting keeps one copy of every module: a class imported
// through `ctxwin` and through `ctxwin/tokens` is the same class, and the core is loaded once.
//
// Why: tsc's output was 207 modules, each a file twice over with its CommonJS twin. Importing the
// root read 140 of them, about 60 ms of CPU before the first count (gpt-tokenizer's whole import is
// less); and every file takes at least a 4 KiB block of the installed package, whose budget is
// 15 MB. The declarations stay one per module (tsc writes them to dist/ beside the bundles):
// editors and type checkers read them, not Node.
//
// Some modules find files by their own place: the package root two folders above
// (runtime/node-loader.ts), `../../prebuilds/...` (the web entries and loader), `../../docs` and
// `../../package.json` (the CLI). They are written one folder below dist/, and so are the chunks, so
// those paths hold wherever such a module lands, unless it is inlined into an entry at another
// depth (dist/index.js, dist/adapters/x/index.js). The build fails then, naming it.
//
// Run as a script by scripts/build.mjs (esbuild's plugins need its asynchronous API; the build is
// synchronous):  node scripts/bundle-esm.mjs <folder of tsc's modules>
//
// Also written: build/dist-modules.json, which modules each output holds (for
// test/ts/web/web-entry.test.ts, which checks what the web entries reach). It is not shipped.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The ESM files of dist/ that package.json names, relative to dist/ ("index.js", "tokens/node.js", ...). */
function entryFiles(pkg) {
  const found = new Set();
  const visit = (value) => {
    if (typeof value === "string") {
      if (value.startsWith("./dist/") && value.endsWith(".js") && !value.startsWith("./dist/cjs/"))
        found.add(value.slice("./dist/".length));
    } else if (value !== null && typeof value === "object") {
      for (const inner of Object.values(value)) visit(inner);
    }
  };
  visit(pkg.exports);
  visit(pkg.bin);
  return [...found].sort();
}

/**
 * True when a module may compute a path from its own place (see the header): it must land one
 * folder below dist/. Any use of `import.meta.url` counts (a `createRequire` from it that only
 * resolves a peer would not care, but telling the two apart is not worth a wrong guess), and any
 * import of prebuilds/ (left as written: the core's files are not bundled). Imports of other
 * modules do not: the bundle resolves them.
 */
function findsFilesByItsPlace(source) {
  return source.includes("import.meta.url") || /["'](\.\.\/)+prebuilds\//.test(source);
}

/**
 * Bundles the modules tsc wrote to `modules` (a folder mirroring ts/) into `dist`. Returns the
 * outputs, relative to `dist`, each with the modules it holds (relative to `modules`).
 */
export async function bundleEsm({ root, modules, dist }) {
  const esbuild = createRequire(join(root, "package.json"))("esbuild");
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];
  const result = await esbuild.build({
    entryPoints: entryFiles(pkg).map((file) => join(modules, file)),
    outbase: modules,
    outdir: dist,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // Dependencies and peers are the application's to install and resolve; the core's files
    // (prebuilds/, the .wasm) are found at run time where they were.
    external: ["node:*", ...external, ...external.map((name) => `${name}/*`)],
    plugins: [
      {
        name: "package-files",
        setup(build) {
          build.onResolve({ filter: /\/prebuilds\// }, (args) => ({ path: args.path, external: true }));
        },
      },
    ],
    chunkNames: "chunks/[name]-[hash]",
    // Two modules' top-level names that collide are renamed in a bundle; what the user sees
    // (`counter.constructor.name`, an error's class in a stack trace) keeps its name.
    keepNames: true,
    metafile: true,
    logLevel: "silent",
  });
  const outputs = {};
  const misplaced = [];
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    const file = relative(dist, join(root, output)).split(sep).join("/");
    const held = Object.keys(meta.inputs).map((input) => relative(modules, join(root, input)).split(sep).join("/"));
    outputs[file] = held.sort();
    if (file.split("/").length === 2) continue;
    for (const module of held) {
      if (findsFilesByItsPlace(readFileSync(join(modules, module), "utf8"))) misplaced.push(`${module} (in dist/${file})`);
    }
  }
  if (misplaced.length > 0) {
    throw new Error(
      `ctxwin: modules that find files by their own place were bundled outside dist/'s first level, where their paths break: ${misplaced.join(", ")}`,
    );
  }
  const map = join(root, "build", "dist-modules.json");
  mkdirSync(dirname(map), { recursive: true });
  writeFileSync(map, `${JSON.stringify(outputs, null, 1)}\n`);
  return outputs;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const [modules] = process.argv.slice(2);
  if (modules === undefined) {
    console.error("usage: node scripts/bundle-esm.mjs <folder of tsc's modules>");
    process.exit(2);
  }
  try {
    await bundleEsm({ root, modules, dist: join(root, "dist") });
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
