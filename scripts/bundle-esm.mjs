// The ESM build: tsc's modules, one file each, bundled by esbuild into the package's entry points
// (every `./dist/...js` that package.json "exports" and "bin" name, at the same paths) and the
// chunks they share (dist/chunks/), in two builds that share nothing:
//
// - Node's: the entries of the "import" condition and "bin" (`dist/index.js`, `dist/tokens/node.js`,
//   the adapters, the CLI). Every one of them imports the whole Node API (the root and the
//   capability subpaths; esbuild's `inject`), so that all of it is one chunk,
//   `dist/chunks/node-*.js`: a class imported through `ctxwin` and through `ctxwin/tokens` is the
//   same class, and the core is loaded once. What only an adapter or the CLI uses stays in its
//   own files (the CLI's commands load when run).
// - The web's: the entries of the browser, worker, workerd and edge-light conditions, with code
//   splitting (`dist/chunks/web-*.js`), which an application's bundler trims further.
//
// Why: tsc's output was 207 modules, each a file twice over with its CommonJS twin. Importing the
// root read 140 of them, about 60 ms of CPU, where gpt-tokenizer's whole import is less: Node's ESM
// loader pays for each module it reads. Split by which entries reach them (one build for both), the
// root read 53 chunks in 50 ms; as one chunk it reads 2 files in 23 ms, and `ctxwin/tokens` alone no
// more. Every file also takes at least a 4 KiB block of the installed package, whose budget is 15
// MB. The declarations stay one per module (tsc writes them to dist/ beside the bundles): editors
// and type checkers read them, not Node. The CommonJS twin (scripts/build-cjs.mjs) is converted
// from Node's build alone: `require` never reaches the web's.
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

/** The export conditions that pick the web build; every other one (import, default) picks Node's. */
const WEB_CONDITIONS = new Set(["browser", "worker", "workerd", "edge-light"]);

/** Where each build puts its shared chunks, relative to dist/: build-cjs.mjs converts Node's alone. */
export const NODE_CHUNKS = "chunks/node-";
export const WEB_CHUNKS = "chunks/web-";

/**
 * The ESM files of dist/ that package.json names, relative to dist/ ("index.js", "tokens/node.js",
 * ...), by build: `node` (with `api`, those of them that have a web twin: the root and the
 * capability subpaths) and `web`.
 */
export function entryFiles(pkg) {
  const node = new Set();
  const web = new Set();
  const api = new Set();
  const esm = (file) => typeof file === "string" && file.startsWith("./dist/") && !file.startsWith("./dist/cjs/") && file.endsWith(".js");
  for (const target of Object.values(pkg.exports ?? {})) {
    const conditions = typeof target === "string" ? { default: target } : target;
    let webTwin = false;
    const nodeFiles = [];
    for (const [condition, value] of Object.entries(conditions)) {
      const file = typeof value === "string" ? value : value?.default;
      if (!esm(file)) continue;
      if (WEB_CONDITIONS.has(condition)) {
        web.add(file.slice("./dist/".length));
        webTwin = true;
      } else nodeFiles.push(file.slice("./dist/".length));
    }
    for (const file of nodeFiles) {
      node.add(file);
      if (webTwin) api.add(file);
    }
  }
  for (const file of Object.values(typeof pkg.bin === "string" ? { bin: pkg.bin } : (pkg.bin ?? {})))
    if (esm(file)) node.add(file.slice("./dist/".length));
  const both = [...node].filter((file) => web.has(file));
  if (both.length > 0)
    throw new Error(`ctxwin: ${both.join(", ")} is both a Node and a web entry in package.json; the two builds cannot write one file`);
  return { node: [...node].sort(), web: [...web].sort(), api: [...api].sort() };
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
  const entries = entryFiles(pkg);
  const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];
  // A bundle turns a class that refers to itself (`this !== CtxwinError`, `new ContextLimits`) into
  // `var CtxwinError = class _CtxwinError`, whose name is then "_CtxwinError". In Node's build each
  // module's classes get their own names back once, as they load. (esbuild's keepNames would do it
  // for every function too, at every closure's creation: a fifth of a plan's time.) Not in the
  // web's: those statements would keep every class in an application's bundle, where its bundler
  // drops the unused ones otherwise (a Claude-only page: 270 KB of JavaScript with them out, 432
  // with them in), and its minifier renames classes anyway.
  const classNames = {
    name: "class-names",
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, (args) => {
        const source = readFileSync(args.path, "utf8");
        const names = [...source.matchAll(/^(?:export )?class (\w+)/gm)].map((match) => match[1]);
        const restore = names.map((name) => `Object.defineProperty(${name}, "name", { value: "${name}", configurable: true });\n`);
        return { contents: source + restore.join(""), loader: "js" };
      });
    },
  };
  const options = {
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
    metafile: true,
    logLevel: "silent",
  };
  // Imported by every Node entry (inject), so that the whole Node API is one chunk.
  const nodeApi = join(modules, "__ctxwin-node-api.js");
  writeFileSync(nodeApi, entries.api.map((file) => `import "./${file}";\n`).join(""));
  const results = [
    await esbuild.build({
      ...options,
      entryPoints: entries.node.map((file) => join(modules, file)),
      inject: [nodeApi],
      plugins: [...options.plugins, classNames],
      chunkNames: `${NODE_CHUNKS}[hash]`,
    }),
    await esbuild.build({ ...options, entryPoints: entries.web.map((file) => join(modules, file)), chunkNames: `${WEB_CHUNKS}[hash]` }),
  ];
  const outputs = {};
  const misplaced = [];
  // A module in several outputs (the web build's chunks share) is read once.
  const placeBound = new Map();
  const findsItsPlace = (module) => {
    if (!placeBound.has(module)) placeBound.set(module, findsFilesByItsPlace(readFileSync(join(modules, module), "utf8")));
    return placeBound.get(module);
  };
  for (const [output, meta] of results.flatMap((result) => Object.entries(result.metafile.outputs))) {
    const file = relative(dist, join(root, output)).split(sep).join("/");
    const held = Object.keys(meta.inputs)
      .map((input) => relative(modules, join(root, input)).split(sep).join("/"))
      .filter((module) => module !== "__ctxwin-node-api.js");
    outputs[file] = held.sort();
    if (file.split("/").length === 2) continue;
    for (const module of held) {
      if (findsItsPlace(module)) misplaced.push(`${module} (in dist/${file})`);
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
