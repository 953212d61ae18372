// Builds the WebAssembly backend: the same core (native/) and the same Node-API glue (binding/),
// compiled with Emscripten against emnapi (a Node-API implementation for WebAssembly), linked
// twice from the same objects:
//   prebuilds/wasm/ctxwin.cjs                     for Node (and Bun, Deno), where no native addon
//                                                 loads: instantiated synchronously while the
//                                                 package is imported, reading data/ from disk;
//                                                 its .wasm is the web build's (the same file)
//   prebuilds/wasm-web/ctxwin.mjs + ctxwin.wasm   for the web entry (browsers, Web Workers,
//                                                 Cloudflare Workers, Vercel Edge, Deno Deploy): an
//                                                 ES module instantiated by `await init()`, its
//                                                 data given to it and kept in memory (MEMFS), no
//                                                 eval or `new Function` (which Workers refuse)
// Both use WebAssembly SIMD128 (-msimd128): every runtime ctxwin supports has it (Node >= 16.4,
// Chrome 91, Firefox 89, Safari 16.4, workerd, Deno, Bun), so one build serves all.
//
//   node scripts/build-wasm.mjs          build when a source changed
//   node scripts/build-wasm.mjs --force  rebuild everything
//
// Toolchain: Debian 12's emscripten 3.1.6 (em++ runs on clang 14), emnapi from npm (compiled here
// from its C sources so that its objects match this Emscripten), utf8proc's C source from
// `apt-get source utf8proc`, nlohmann_json's headers from nlohmann-json3-dev. No network.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";
import { root } from "./build.mjs";
import { cachedCompile, compilerCacheEnv } from "./compiler-cache.mjs";
import { readRankFile } from "./rank-data.mjs";
import { pcre2SourceDir, utf8procSourceDir } from "./system-deps.mjs";

export const wasmDir = join(root, "prebuilds", "wasm");
export const wasmEntry = join(wasmDir, "ctxwin.cjs");
export const webWasmDir = join(root, "prebuilds", "wasm-web");
export const webWasmEntry = join(webWasmDir, "ctxwin.mjs");
const objDir = join(root, "build-wasm");

function files(dir, suffix) {
  const out = [];
  const visit = (p) => {
    for (const name of readdirSync(p)) {
      const full = join(p, name);
      if (statSync(full).isDirectory()) visit(full);
      else if (name.endsWith(suffix)) out.push(full);
    }
  };
  if (existsSync(dir)) visit(dir);
  return out.sort();
}

function mtime(path) {
  return existsSync(path) ? statSync(path).mtimeMs : -1;
}

function newest(paths) {
  return Math.max(...paths.map(mtime));
}

function emnapiDir() {
  return join(root, "node_modules", "emnapi");
}

/** Every input of the build; the artefact is stale when one is newer. */
function inputs() {
  return [...files(join(root, "native"), ""), ...files(join(root, "binding"), ""), join(root, "scripts", "build-wasm.mjs")];
}

export function wasmIsStale() {
  const built = Math.min(mtime(wasmEntry), mtime(join(webWasmDir, "ctxwin.wasm")));
  return built < newest(inputs()) || !existsSync(wasmEntry) || !existsSync(webWasmEntry);
}

export function emscriptenEnv() {
  // Debian's emscripten runs its JS tools on the system node and needs its packaged modules.
  const nodePath = ["/usr/share/nodejs", process.env.NODE_PATH].filter(Boolean).join(":");
  return { ...process.env, NODE_PATH: nodePath, EM_CACHE: process.env.EM_CACHE ?? "/usr/share/emscripten/cache" };
}

// Runs up to `parallel` compiler jobs at once.
async function runAll(jobs, parallel) {
  const queue = [...jobs];
  const errors = [];
  const worker = async () => {
    while (queue.length > 0) {
      const [command, args] = queue.shift();
      await new Promise((resolve) => {
        const child = spawn(command, args, { cwd: root, stdio: "inherit", env: compilerCacheEnv(emscriptenEnv()) });
        child.on("close", (code) => {
          if (code !== 0) errors.push(`${command} ${args.join(" ")}`);
          resolve();
        });
      });
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  if (errors.length > 0) throw new Error(`ctxwin: the WebAssembly build failed:\n  ${errors.join("\n  ")}`);
}

/**
 * emnapi's JavaScript library, rewritten for Emscripten 3.1.6's macro language: emnapi targets
 * Emscripten >= 3.1.9, whose makeGetValue/makeSetValue know unsigned types ('u8', 'u32'),
 * SIZE_TYPE, POINTER_SIZE and POINTER_WASM_TYPE, whose makeDynCall knows the 'p' (pointer) signature letter, and which
 * has getUnsharedTextDecoderView; 3.1.6 also takes a library string "undefined" for an alias. On wasm32 each maps to what 3.1.6 has; nothing else changes.
 */
function emnapiLibraryFor316(source) {
  const prelude = '{{{ (globalThis.POINTER_SIZE ??= 4, globalThis.POINTER_WASM_TYPE ??= "i32", "") }}}\n';
  return (
    prelude +
    source
      .replace(
        /\{\{\{ makeGetValue\(([^}]*?), '(u8|u16|u32)'\) \}\}\}/g,
        (_, args, type) => `{{{ makeGetValue(${args}, 'i${type.slice(1)}', undefined, true) }}}`,
      )
      .replace(/\{\{\{ makeGetValue\(([^}]*?), SIZE_TYPE\) \}\}\}/g, (_, args) => `{{{ makeGetValue(${args}, 'i32', undefined, true) }}}`)
      .replace(
        /\{\{\{ makeSetValue\(([^}]*?), '(u8|u16|u32)'\) \}\}\}/g,
        (_, args, type) => `{{{ makeSetValue(${args}, 'i${type.slice(1)}') }}}`,
      )
      .replace(/\{\{\{ makeSetValue\(([^}]*?), SIZE_TYPE\) \}\}\}/g, (_, args) => `{{{ makeSetValue(${args}, 'i32') }}}`)
      .replace(/\{\{\{ makeDynCall\('([a-z]+)'/g, (_, sig) => `{{{ makeDynCall('${sig.replace(/p/g, "i")}'`)
      // 3.1.6 reads a library string value that is a bare identifier as an alias to that function.
      .replace(/^(\s+\$\w+): "undefined",$/gm, '$1: "void 0",')
      .replace(/^(\s+\w+__sig): "([a-z]+)",$/gm, (_, key, sig) => `${key}: "${sig.replace(/p/g, "i")}",`)
      .replace(/\{\{\{ getUnsharedTextDecoderView\('HEAPU8', '(\w+)', '(\w+)'\) \}\}\}/g, "HEAPU8.subarray($1, $2)")
  );
}

// The data modules (`ctxwin/data/<name>`): each file of data/ as a JavaScript module holding its
// bytes deflated (zlib format) and in base64, so that every bundler and runtime takes it as it is
// and an application ships only the tables it imports. Deflated, the six modules are 2.7 MB
// instead of 4.8 MB, in the package and in a bundle; the core's loaders inflate a table once, when
// it is first given (init() on the web, with DecompressionStream, or tiny-inflate where the runtime
// has none: docs/install.md says why not fflate) or first read (Node, zlib). They
// are the package's one copy of the tables: Node reads the same files
// (ts/runtime/node-loader.ts), as text, parsing the object after `export default` as JSON.
// v5 counts with v4.7's vocabulary: one copy.
const DATA_MODULES = [
  ["r50k_base", "openai/r50k_base.bin"],
  ["p50k_base", "openai/p50k_base.bin"],
  ["cl100k_base", "openai/cl100k_base.bin"],
  ["o200k_base", "openai/o200k_base.bin"],
  ["claude-v3", "claude/v3.bin"],
  ["claude-v4.7", "claude/v4_7.bin"],
];
export const dataModulesDir = join(webWasmDir, "data");
const DATA_TYPE =
  "declare const data: { readonly path: string; readonly size: number; readonly deflated: string };\nexport default data;\n";
// A table whose ranks start with another's whole table ships only the ranks after them, with the
// other's module as its base: p50k_base is r50k_base's ranks and 25 more (an empty rank for
// <|endoftext|>, then runs of 2 to 25 spaces), 260 KiB the package no longer carries twice. The
// loaders join them (ts/runtime/appended-ranks.ts), checking the joined table's size.
const DERIVED_MODULES = { p50k_base: "r50k_base" };
const DERIVED_TYPE =
  "declare const data: {\n  readonly path: string;\n  readonly size: number;\n  readonly base: { readonly path: string; readonly size: number; readonly deflated: string };\n  readonly appended: readonly string[];\n};\nexport default data;\n";

/** The ranks `bytes` has after `base`'s, in base64; undefined unless `base`'s ranks are its first. */
function ranksAfter(bytes, base) {
  const tokens = readRankFile(bytes);
  const shared = readRankFile(base);
  if (shared.length > tokens.length || shared.some((token, rank) => !token.equals(tokens[rank]))) return undefined;
  return tokens.slice(shared.length).map((token) => token.toString("base64"));
}

export function writeDataModules() {
  mkdirSync(dataModulesDir, { recursive: true });
  const header = "// Made by scripts/build-wasm.mjs from data/ in ctxwin's repository: give it to init().\n";
  for (const [name, path] of DATA_MODULES) {
    const target = join(dataModulesDir, `${name}.js`);
    const source = join(root, "data", path);
    const baseName = DERIVED_MODULES[name];
    const basePath = DATA_MODULES.find(([other]) => other === baseName)?.[1];
    const baseSource = basePath === undefined ? source : join(root, "data", basePath);
    const appended = basePath === undefined ? undefined : ranksAfter(readFileSync(source), readFileSync(baseSource));
    if (mtime(target) < Math.max(mtime(source), mtime(baseSource), mtime(join(root, "scripts", "build-wasm.mjs")))) {
      const bytes = readFileSync(source);
      // `const table = <JSON>;` on a line of its own: Node's loader reads it as text (ts/runtime/node-loader.ts).
      if (appended !== undefined) {
        const table = JSON.stringify({ path, size: bytes.length, appended });
        writeFileSync(
          target,
          `${header}import base from "./${baseName}.js";\nconst table = ${table};\nexport default { ...table, base };\n`,
        );
      } else {
        const table = JSON.stringify({ path, size: bytes.length, deflated: deflateSync(bytes, { level: 9 }).toString("base64") });
        writeFileSync(target, `${header}const table = ${table};\nexport default table;\n`);
      }
    }
    writeFileSync(join(dataModulesDir, `${name}.d.ts`), appended === undefined ? DATA_TYPE : DERIVED_TYPE);
  }
  writeFileSync(join(dataModulesDir, "claude-v5.js"), `${header}export { default } from "./claude-v4.7.js";\n`);
  writeFileSync(join(dataModulesDir, "claude-v5.d.ts"), DATA_TYPE);
  const names = DATA_MODULES.map(([name]) => name);
  const binding = (name) => name.replace(/[^A-Za-z0-9]+(.)/g, (_, c) => c.toUpperCase());
  writeFileSync(
    join(dataModulesDir, "all.js"),
    header +
      names.map((name) => `import ${binding(name)} from "./${name}.js";\n`).join("") +
      `export default [${names.map(binding).join(", ")}];\n`,
  );
  writeFileSync(
    join(dataModulesDir, "all.d.ts"),
    "declare const data: ReadonlyArray<{\n  readonly path: string;\n  readonly size: number;\n  readonly deflated?: string;\n  readonly base?: { readonly path: string; readonly size: number; readonly deflated: string };\n  readonly appended?: readonly string[];\n}>;\nexport default data;\n",
  );
}

export async function buildWasm({ force = false, parallel = 2 } = {}) {
  writeDataModules();
  if (!force && !wasmIsStale()) return false;
  const emnapi = emnapiDir();
  if (!existsSync(join(emnapi, "dist", "library_napi.js"))) {
    throw new Error("ctxwin: the emnapi package is missing; run `npm install` in the repository first");
  }
  const utf8proc = utf8procSourceDir();
  const pcre2 = pcre2SourceDir();
  console.log("ctxwin: building the WebAssembly core (em++)");
  mkdirSync(objDir, { recursive: true });
  mkdirSync(wasmDir, { recursive: true });
  mkdirSync(webWasmDir, { recursive: true });
  // Only nlohmann's headers: the whole of /usr/include would shadow Emscripten's libc.
  const includeDir = join(objDir, "include");
  mkdirSync(includeDir, { recursive: true });
  if (!existsSync(join(includeDir, "nlohmann"))) symlinkSync("/usr/include/nlohmann", join(includeDir, "nlohmann"));
  // PCRE2's 8-bit library from its source, configured as its CMake build does with the defaults
  // (config.h.generic) plus Unicode support; no JIT (it has no WebAssembly back end).
  const pcre2Include = join(objDir, "pcre2");
  mkdirSync(pcre2Include, { recursive: true });
  for (const [from, to] of [
    ["pcre2.h.generic", "pcre2.h"],
    ["config.h.generic", "config.h"],
    ["pcre2_chartables.c.dist", "pcre2_chartables.c"],
  ]) {
    const target = join(pcre2Include, to);
    if (!existsSync(target)) writeFileSync(target, readFileSync(join(pcre2, "src", from)));
  }

  const common = ["-O3", "-flto", "-fwasm-exceptions", "-msimd128", "-DNDEBUG"];
  const napiDefines = ["-DBUILDING_NODE_EXTENSION", '-DNAPI_EXTERN=__attribute__((__import_module__("env")))'];
  const cxx = [
    ...common,
    "-std=c++20",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-I",
    join(root, "native", "include"),
    "-I",
    join(root, "native", "src"),
    "-I",
    join(root, "binding"),
    "-I",
    utf8proc,
    "-isystem",
    includeDir,
    "-isystem",
    pcre2Include,
    "-DPCRE2_STATIC",
    "-isystem",
    join(emnapi, "include", "node"),
    "-isystem",
    join(root, "node_modules", "node-addon-api"),
    "-DUTF8PROC_STATIC",
    "-DNAPI_VERSION=8",
    "-DNODE_ADDON_API_CPP_EXCEPTIONS",
    "-DNODE_ADDON_API_CPP_EXCEPTIONS_ALL",
    "-DNODE_ADDON_API_DISABLE_DEPRECATED",
    ...napiDefines,
    // emnapi-basic answers napi_*_async_work from JavaScript (run on the main thread, one job at a
    // time), so node-addon-api's AsyncWorker, which it hides in a build without threads, works.
    "-DNAPI_HAS_THREADS=1",
  ];
  const pcre2Flags = [
    ...common,
    "-DHAVE_CONFIG_H",
    "-DPCRE2_CODE_UNIT_WIDTH=8",
    "-DPCRE2_STATIC",
    "-DSUPPORT_UNICODE",
    "-DHAVE_MEMMOVE",
    "-I",
    pcre2Include,
    "-I",
    join(pcre2, "src"),
  ];
  const pcre2Sources = [
    "auto_possess",
    "compile",
    "config",
    "context",
    "convert",
    "dfa_match",
    "error",
    "extuni",
    "find_bracket",
    "jit_compile",
    "maketables",
    "match",
    "match_data",
    "newline",
    "ord2utf",
    "pattern_info",
    "script_run",
    "serialize",
    "string_utils",
    "study",
    "substitute",
    "substring",
    "tables",
    "ucd",
    "valid_utf",
    "xclass",
  ].map((name) => ({ src: join(pcre2, "src", `pcre2_${name}.c`), flags: pcre2Flags }));
  const cSources = [
    { src: join(utf8proc, "utf8proc.c"), flags: [...common, "-DUTF8PROC_STATIC", "-I", utf8proc] },
    { src: join(pcre2Include, "pcre2_chartables.c"), flags: pcre2Flags },
    ...pcre2Sources,
    ...["js_native_api.c", "node_api.c", "async_cleanup_hook.c", "async_context.c"].map((name) => ({
      src: join(emnapi, "src", name),
      flags: [...common, "-DNAPI_VERSION=8", ...napiDefines, "-I", join(emnapi, "include", "node"), "-I", join(emnapi, "src")],
    })),
  ];
  const cxxSources = [...files(join(root, "native", "src"), ".cpp"), ...files(join(root, "binding"), ".cpp")];

  const objects = [];
  const jobs = [];
  const headersMtime = newest([
    ...files(join(root, "native"), ".hpp"),
    ...files(join(root, "binding"), ".hpp"),
    join(root, "scripts", "build-wasm.mjs"),
  ]);
  const add = (src, flags, command) => {
    const rel = src.startsWith(root) ? relative(root, src) : relative(join(src, "..", ".."), src);
    const obj = join(objDir, `${rel.replace(/[\\/]/g, "_")}.o`);
    objects.push(obj);
    if (force || mtime(obj) < Math.max(mtime(src), headersMtime)) jobs.push(cachedCompile(command, [...flags, "-c", src, "-o", obj]));
  };
  for (const { src, flags } of cSources) add(src, flags, "emcc");
  for (const src of cxxSources) add(src, cxx, "em++");
  await runAll(jobs, parallel);
  const library = join(objDir, "library_napi.js");
  writeFileSync(library, emnapiLibraryFor316(readFileSync(join(emnapi, "dist", "library_napi.js"), "utf8")));

  const link = [
    ...common,
    ...objects,
    "--js-library",
    library,
    "-sALLOW_MEMORY_GROWTH=1",
    "-sINITIAL_MEMORY=33554432",
    "-sTOTAL_STACK=1048576",
  ];
  const exported = "-sEXPORTED_FUNCTIONS=['_malloc','_free','_napi_register_wasm_v1','_node_api_module_get_api_version_v1']";
  // The two links run side by side: each is one long single-threaded LTO step.
  rmSync(join(wasmDir, "ctxwin.wasm"), { force: true });
  rmSync(join(webWasmDir, "ctxwin.wasm"), { force: true });
  await runAll(
    [
      [
        "em++",
        [
          ...link,
          "-o",
          wasmEntry,
          "-sENVIRONMENT=node",
          "-sNODERAWFS=1", // data/ and tokenizer.json files are read from disk as they are
          "-sWASM_ASYNC_COMPILATION=0", // instantiated while `require` runs: the package loads synchronously
          "-sNODEJS_CATCH_EXIT=0",
          "-sNODEJS_CATCH_REJECTION=0",
          exported,
          "-sEXPORTED_RUNTIME_METHODS=['emnapiInit']",
        ],
      ],
      [
        "em++",
        [
          ...link,
          "-o",
          webWasmEntry,
          "-sENVIRONMENT=web,worker",
          "-sMODULARIZE=1",
          "-sEXPORT_ES6=1",
          "-sEXPORT_NAME=createCtxwinCore",
          "-sFORCE_FILESYSTEM=1", // MEMFS: the data init() is given, read by the core as files
          "-sDYNAMIC_EXECUTION=0", // Workers and edge runtimes refuse eval and new Function
          exported,
          "-sEXPORTED_RUNTIME_METHODS=['emnapiInit','FS']",
        ],
      ],
    ],
    parallel,
  );
  shareWasm();
  return true;
}

/**
 * The two links make the same .wasm (the same objects and imports; only the JavaScript glue
 * differs), so the package carries it once: the Node glue is pointed at the web build's copy. Were
 * they ever to differ, each build keeps its own.
 */
function shareWasm() {
  const nodeWasm = join(wasmDir, "ctxwin.wasm");
  if (!readFileSync(nodeWasm).equals(readFileSync(join(webWasmDir, "ctxwin.wasm")))) return;
  const glue = readFileSync(wasmEntry, "utf8");
  const name = 'wasmBinaryFile="ctxwin.wasm"';
  if (glue.split(name).length !== 2)
    throw new Error(`ctxwin: ${wasmEntry} does not name its .wasm once as ${name}; cannot share the web build's`);
  writeFileSync(wasmEntry, glue.replace(name, 'wasmBinaryFile="../wasm-web/ctxwin.wasm"'));
  rmSync(nodeWasm);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    await buildWasm({ force: process.argv.includes("--force") });
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
