// Loads the compiled core on Node (and Bun, Deno) while the package is imported, and installs it
// with what Node offers beyond it: the package's data folders and the file system. Two builds of
// the same core and the same Node-API glue: the native addon (built here, or prebuilt in the
// package for linux-x64 glibc) and, where none loads, its WebAssembly build, instantiated
// synchronously. CTXWIN_BACKEND=native|wasm forces one. Every Node entry point imports this file
// first; the web entry never does (web-loader.ts is its loader).
import { existsSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { inflateSync } from "node:zlib";
import { appendRanks } from "./appended-ranks.js";
import { plainError } from "./errors.js";
import { setFrameworkLoader } from "./framework-modules.js";
import { loadFramework } from "./load-peer.js";
import { consoleLogger } from "./logger.js";
import { installCore, type Backend, type HostFiles, type JinjaTemplateClass, type NativeCore } from "./native.js";
import type { InitOptions } from "./web-loader.js";

interface Loaded {
  core: NativeCore;
  backend: Backend;
}

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const require = createRequire(import.meta.url);

/**
 * The addons to try, best first: one built here (a source checkout, or an install with
 * scripts/build-from-source.mjs), then the prebuilt one the package ships for this platform.
 */
function addonCandidates(): string[] {
  return [join(packageRoot, "build", "ctxwin.node"), join(packageRoot, "prebuilds", `${process.platform}-${process.arch}`, "ctxwin.node")];
}

/** The native addon, or why none loads here. */
function loadNative(): NativeCore | string {
  const reasons: string[] = [];
  for (const path of addonCandidates()) {
    if (!existsSync(path)) continue;
    try {
      return require(path) as NativeCore;
    } catch (error) {
      reasons.push(`${path} does not load (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`);
    }
  }
  if (reasons.length > 0) return reasons.join("; ");
  return `no native addon for ${process.platform}-${process.arch} in the package (prebuilt: linux-x64 with glibc >= 2.35)`;
}

/** The same core and glue compiled to WebAssembly (emnapi); instantiated synchronously. */
function loadWasm(): NativeCore {
  const entry = join(packageRoot, "prebuilds", "wasm", "ctxwin.cjs");
  if (!existsSync(entry)) {
    throw plainError(
      `ctxwin: the WebAssembly build is missing (${entry}); reinstall the package, or in a source checkout run \`npm run build\``,
      "ERR_CTXWIN_ADDON_MISSING",
    );
  }
  const module = require(entry) as { emnapiInit(options: { context: unknown; filename?: string }): NativeCore };
  const { getDefaultContext } = require("@emnapi/runtime") as { getDefaultContext(): unknown };
  return module.emnapiInit({ context: getDefaultContext(), filename: entry });
}

function load(): Loaded {
  const forced = process.env.CTXWIN_BACKEND;
  if (forced !== undefined && forced !== "" && forced !== "native" && forced !== "wasm") {
    throw plainError(`ctxwin: CTXWIN_BACKEND must be "native" or "wasm" (got ${JSON.stringify(forced)})`, "ERR_CTXWIN_INVALID_ARGUMENT");
  }
  if (forced === "wasm") return { core: loadWasm(), backend: "wasm" };
  const native = loadNative();
  if (typeof native !== "string") return { core: native, backend: "native" };
  if (forced === "native") {
    throw plainError(
      `ctxwin: CTXWIN_BACKEND=native, but ${native}. Build it with \`npm rebuild ctxwin --build-from-source\` ` +
        "(needs cmake, a C++20 compiler, nlohmann-json3-dev and libutf8proc-dev).",
      "ERR_CTXWIN_ADDON_MISSING",
    );
  }
  const core = loadWasm();
  // Said once per process (per thread): counts are the same, only slower than the native addon.
  consoleLogger.warn(`ctxwin: using the WebAssembly build: ${native}.`);
  return { core, backend: "wasm" };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

const nodeFiles: HostFiles = {
  file: (path) => (isFile(path) ? resolve(path) : undefined),
  packageFile(name, paths) {
    // From this package's node_modules, then the application's (the current folder's).
    const folders = [...(require.resolve.paths(name) ?? []), ...(createRequire(join(process.cwd(), "index.js")).resolve.paths(name) ?? [])];
    for (const folder of folders) {
      for (const path of paths) {
        const file = join(folder, name, path);
        if (existsSync(file)) return file;
      }
    }
    return undefined;
  },
  sibling: (path, name) => join(dirname(path), name),
  readText: (path) => (existsSync(path) ? readFileSync(path, "utf8") : undefined),
  cacheDir() {
    const configured = process.env.CTXWIN_CACHE_DIR;
    if (configured) return resolve(configured);
    const xdg = process.env.XDG_CACHE_HOME;
    if (xdg) return join(resolve(xdg), "ctxwin");
    const home = homedir();
    return home ? join(home, ".cache", "ctxwin") : undefined;
  },
};

// The data tables are read from the web entry's data modules (`ctxwin/data/<name>`), the one copy
// the package ships for every runtime: each is one file of data/ deflated and in base64, written by
// scripts/build-wasm.mjs as `export default {"path":…,"deflated":…};`, whose object is JSON. Read
// as text rather than imported: a `require` of an ES module needs Node 20.19, and an `import` is
// asynchronous. Decoded and inflated (synchronously: the core asks for the table inside a
// counter's constructor) only when the core first loads that table, once per process.
const dataModulesDir = join(packageRoot, "prebuilds", "wasm-web", "data");
const CLAUDE_MODULES: Record<string, string> = { v3: "claude-v3", "v4.7": "claude-v4.7", v5: "claude-v4.7" };

function dataModule(name: string): () => Uint8Array {
  return () => {
    const file = join(dataModulesDir, `${name}.js`);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw plainError(
        `ctxwin: cannot read the data module ${file} (${reason}); reinstall the package, or in a source checkout run \`npm run build\``,
        "ERR_CTXWIN_RANK_DATA_UNAVAILABLE",
        { cause: error },
      );
    }
    return tableBytes(file, text);
  };
}

/**
 * The bytes of the table in a data module's text: its `const table = {…};` line (JSON) holds them
 * deflated, or names the module whose table it extends (`import base from "./r50k_base.js"`) and
 * the ranks it appends (ts/runtime/appended-ranks.ts).
 */
function tableBytes(file: string, text: string): Uint8Array {
  const json = /^const table = (\{.*\});$/m.exec(text)?.[1];
  const unreadable = (reason: string, cause?: unknown) =>
    plainError(
      `ctxwin: the data module ${file} is not one scripts/build-wasm.mjs writes (${reason}); reinstall the package, or in a source checkout run \`npm run build\``,
      "ERR_CTXWIN_RANK_DATA_UNAVAILABLE",
      cause === undefined ? undefined : { cause },
    );
  if (json === undefined) throw unreadable("no table line");
  const table = JSON.parse(json) as { size: number; deflated?: string; appended?: string[] };
  if (typeof table.deflated === "string") return inflateSync(Buffer.from(table.deflated, "base64"));
  const base = /^import base from "\.\/([\w.-]+)\.js";$/m.exec(text)?.[1];
  if (base === undefined || !Array.isArray(table.appended)) throw unreadable("neither its bytes nor a base table");
  let bytes: Uint8Array;
  try {
    bytes = appendRanks(
      dataModule(base)(),
      table.appended.map((token) => Buffer.from(token, "base64")),
    );
  } catch (error) {
    if (error instanceof Error && "code" in error) throw error;
    throw unreadable(error instanceof Error ? error.message : String(error), error);
  }
  if (bytes.length !== table.size) throw unreadable(`its table is ${bytes.length} bytes, not ${table.size}`);
  return bytes;
}

// A history of a framework's messages gets its inserted messages from the caller's copy of it.
setFrameworkLoader(loadFramework);

installCore({
  ...load(),
  rankData: (encoding) => dataModule(encoding),
  // An unknown family is refused by the core before it asks for the vocabulary.
  claudeData: (family) => dataModule(CLAUDE_MODULES[family] ?? `claude-${family}`),
  files: nodeFiles,
  // Loaded on the first chat template: importing ctxwin does not pay for it.
  jinjaTemplate: () => (require("@huggingface/jinja") as { Template: JinjaTemplateClass }).Template,
});

/**
 * Resolves at once: on Node the core is loaded while the package is imported and reads its data
 * from the package's files. It is here so that code written for the web entry, which must
 * `await init()` first, runs on Node unchanged.
 */
export async function init(_options?: InitOptions): Promise<void> {}
