// The CommonJS build: dist/cjs/ mirrors the files of dist/'s Node build (scripts/bundle-esm.mjs;
// `require` never reaches the web build's), each converted from ESM to CommonJS by esbuild (no
// bundling: the same files, `require` in place of `import`), with
// dist/cjs/package.json saying "commonjs" so Node and TypeScript read the folder's .js and .d.ts as
// CommonJS. `require("ctxwin")` resolves here through the package's `require` export condition.
//
// Why a build rather than Node's require(esm): require(esm) needs Node 20.19+, and TypeScript
// resolving a `require` to an ESM declaration is an error in every version before 5.8 and in any
// version under `module: node16` (the CommonJS row of the type checks).
//
// `import.meta.url` becomes the URL of the ESM twin in dist/ (same relative place), so that the
// paths modules compute from it (the package root, data/, package.json) stay the same.
// `import.meta.resolve` becomes undefined: the adapters' framework loader (ts/runtime/load-peer.ts)
// then resolves and loads the framework with `require`, the copy a CommonJS application gets.
// Dynamic `import()` stays an import(): an ESM-only optional peer still loads from CommonJS.
//
// Modules with top-level await cannot be CommonJS (none has one now: the adapters load their
// frameworks synchronously); such a module and the entries that import it would be left out, and
// the build says which.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { WEB_CHUNKS, entryFiles } from "./bundle-esm.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const out = join(dist, "cjs");

/** The files of dist/ (not dist/cjs) ending in `suffix`, relative to dist/. */
export function distFiles(suffix) {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (path !== out) walk(path);
      } else if (entry.name.endsWith(suffix)) {
        found.push(relative(dist, path).split(sep).join("/"));
      }
    }
  };
  walk(dist);
  return found.sort();
}

/** The modules of dist/ that have top-level await (esbuild cannot convert them), and every module that imports one. */
function esmOnly(modules, convert) {
  const blocked = new Set();
  for (const file of modules) {
    try {
      convert(file);
    } catch (error) {
      if (!/Top-level await/.test(String(error))) throw error;
      blocked.add(file);
    }
  }
  let grew = true;
  while (grew) {
    grew = false;
    for (const file of modules) {
      if (blocked.has(file)) continue;
      const source = readFileSync(join(dist, file), "utf8");
      for (const [, specifier] of source.matchAll(/^(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"/gm)) {
        if (blocked.has(join(dirname(file), specifier).split(sep).join("/"))) {
          blocked.add(file);
          grew = true;
          break;
        }
      }
    }
  }
  return blocked;
}

/** Writes dist/cjs/ from dist/; the modules left out (ESM-only), relative to dist/. */
export function buildCommonJs() {
  const esbuild = createRequire(join(root, "package.json"))("esbuild");
  rmSync(out, { recursive: true, force: true });
  // The web build's entries and chunks stay ESM only.
  const web = new Set(entryFiles(JSON.parse(readFileSync(join(root, "package.json"), "utf8"))).web);
  const modules = distFiles(".js").filter((file) => !web.has(file) && !file.startsWith(WEB_CHUNKS));
  const convert = (file) => {
    const source = readFileSync(join(dist, file), "utf8");
    // From dist/cjs/a/b.js's folder, dist/ is two folders up (one per path segment of "a/b.js").
    const twin = JSON.stringify([...Array(file.split("/").length).fill(".."), file].join("/"));
    const { code } = esbuild.transformSync(source.replace(/^#!.*\n/, ""), {
      format: "cjs",
      platform: "node",
      target: "node20",
      supported: { "dynamic-import": true },
      define: { "import.meta.url": "__ctxwinModuleUrl", "import.meta.resolve": "undefined" },
      banner: source.includes("import.meta.url")
        ? `const __ctxwinModuleUrl = require("node:url").pathToFileURL(require("node:path").join(__dirname, ${twin})).href;`
        : "",
      sourcefile: file,
      logLevel: "silent",
    });
    return code;
  };
  const skipped = esmOnly(modules, convert);
  for (const file of modules) {
    if (skipped.has(file)) continue;
    mkdirSync(dirname(join(out, file)), { recursive: true });
    writeFileSync(join(out, file), convert(file));
  }
  // The declarations, as CommonJS ones: the same text, read as CommonJS because of the folder's
  // package.json. Their maps point at ts/ by a relative path that would be wrong one level down.
  for (const file of distFiles(".d.ts")) {
    const js = file.replace(/\.d\.ts$/, ".js");
    if (skipped.has(js)) continue;
    mkdirSync(dirname(join(out, file)), { recursive: true });
    writeFileSync(join(out, file), readFileSync(join(dist, file), "utf8").replace(/\n\/\/# sourceMappingURL=.*\n?$/, "\n"));
  }
  writeFileSync(join(out, "package.json"), `${JSON.stringify({ type: "commonjs" }, null, 2)}\n`);
  return [...skipped];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const skipped = buildCommonJs();
  console.log(`ctxwin: dist/cjs/ written${skipped.length ? ` (ESM-only, top-level await: ${skipped.join(", ")})` : ""}`);
}
