// Builds what is stale: the native addon (CMake) and the TypeScript API (tsc). The WebAssembly
// build is scripts/build-wasm.mjs; an installed package's source build is scripts/build-from-source.mjs.
//
//   node scripts/build.mjs            build both when their sources changed (installs no system package)
//   node scripts/build.mjs --force    rebuild both
//
// Plain Node with no dependencies besides what package.json installs. No network.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { buildCommonJs } from "./build-cjs.mjs";
import { compilerCacheCmakeOptions, compilerCacheEnv } from "./compiler-cache.mjs";
import { missingSystemPackages, installCommand } from "./system-deps.mjs";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const buildDir = join(root, "build");
export const addonPath = join(buildDir, "ctxwin.node");
const distEntry = join(root, "dist", "index.js");
/** What a source build needs of the repository; the tarball carries it as SOURCES_ARCHIVE (scripts/prepack.mjs). */
export const SOURCES = ["native", "binding", "CMakeLists.txt"];
export const SOURCES_ARCHIVE = "native-sources.tar.gz";
/** The `ctxwin` executable (package.json "bin"). */
const cliEntry = join(root, "dist", "cli", "main.js");

/**
 * The newest file or folder under `paths` (relative to the root): its modification time and path.
 * Folders count too: a file deleted or renamed changes only its folder's time, and its old output
 * (a dist/ file a test could still import) is stale all the same.
 */
export function newestSource(paths) {
  let newest = { mtimeMs: 0, path: "" };
  const visit = (p) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.mtimeMs > newest.mtimeMs) newest = { mtimeMs: st.mtimeMs, path: relative(root, p) };
    if (st.isDirectory()) for (const name of readdirSync(p)) visit(join(p, name));
  };
  paths.forEach((p) => visit(join(root, p)));
  return newest;
}

export function mtime(path) {
  return existsSync(path) ? statSync(path).mtimeMs : -1;
}

/** What the addon is compiled from (the C++ tests are built with it, by the same CMake run). */
export const NATIVE_SOURCES = ["native", "binding", "CMakeLists.txt"];
/** What dist/ is compiled from: the API, its compiler settings and the scripts that emit it. */
export const TYPESCRIPT_SOURCES = [
  "ts",
  "tsconfig.json",
  "tsconfig.build.json",
  "tsconfig.base.json",
  "scripts/build-cjs.mjs",
  "scripts/bundle-esm.mjs",
];
/** The file whose time stands for all of dist/ (written by the last emit). */
export const typescriptOutput = distEntry;

export function nativeIsStale() {
  return mtime(addonPath) < newestSource([...NATIVE_SOURCES, "test/native"]).mtimeMs;
}

export function typescriptIsStale() {
  return mtime(distEntry) < newestSource(TYPESCRIPT_SOURCES).mtimeMs;
}

function run(command, args) {
  execFileSync(command, args, { cwd: root, stdio: "inherit", env: compilerCacheEnv() });
}

/**
 * Builds build/ctxwin.node when stale (or `force`). `cmakeOptions` are given to CMake's first
 * configure (the source build of an installed package names its header folders there).
 */
export function buildNative({ force = false, cmakeOptions = [] } = {}) {
  if (!force && !nativeIsStale()) return false;
  const missing = missingSystemPackages({ needTests: false });
  if (missing.length > 0) {
    throw new Error(
      `ctxwin: cannot build the native addon; missing system packages: ${missing.join(", ")}\n` +
        `  install them with: sudo apt-get update && sudo ${installCommand(missing)}`,
    );
  }
  console.log("ctxwin: building the native core and addon (cmake)");
  if (!existsSync(join(buildDir, "CMakeCache.txt")) || cmakeOptions.length > 0) {
    run("cmake", ["-S", root, "-B", buildDir, "-DCMAKE_BUILD_TYPE=Release", ...compilerCacheCmakeOptions(), ...cmakeOptions]);
  }
  run("cmake", ["--build", buildDir, "--parallel", String(Math.max(1, availableParallelism()))]);
  // CMake relinks the addon only when its own inputs changed: after an edit that does not reach it
  // (a bench target in CMakeLists.txt) the file keeps its old time and would stay "stale" forever.
  // CMake has just said it is current, so it is dated now.
  const now = new Date();
  utimesSync(addonPath, now, now);
  return true;
}

export function buildTypescript({ force = false } = {}) {
  if (!force && !typescriptIsStale()) return false;
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  if (!existsSync(tsc)) {
    if (existsSync(distEntry)) return false; // installed as a dependency: dist/ ships built
    throw new Error("ctxwin: dist/ is missing and TypeScript is not installed; run `npm install` in the package first");
  }
  console.log("ctxwin: compiling the TypeScript API (tsc)");
  // dist/index.js is dated to the start once all of dist/ is written (the CommonJS twin last), and
  // to 1970 until then: an interrupted build stays stale, and so does a source saved while tsc was
  // reading the others.
  const started = new Date();
  // From scratch: a file moved or deleted in ts/ must not live on in dist/ (npm pack would ship it).
  rmSync(join(root, "dist"), { recursive: true, force: true });
  const project = join(root, "tsconfig.build.json");
  // Two emits: the declarations with their doc comments (what an editor shows) into dist/, then the
  // JavaScript without comments (--noCheck: the first pass checked the same program) into a folder
  // of its own, which scripts/bundle-esm.mjs bundles into dist/'s entry points and shared chunks.
  // Comments are a quarter of the JavaScript, twice over with the CommonJS twin, and the install
  // budget (15 MB, .ci/install-smoke.sh) counts every byte; the commented source is in the repository.
  run(process.execPath, [tsc, "-p", project, "--emitDeclarationOnly"]);
  const modules = mkdtempSync(join(tmpdir(), "ctxwin-modules-"));
  try {
    run(process.execPath, [tsc, "-p", project, "--declaration", "false", "--removeComments", "--noCheck", "--outDir", modules]);
    run(process.execPath, [join(root, "scripts", "bundle-esm.mjs"), modules]);
  } finally {
    rmSync(modules, { recursive: true, force: true });
  }
  utimesSync(distEntry, 0, 0);
  buildCommonJs();
  // tsc keeps the shebang but not an executable mode; npm sets it on install, a checkout needs it too.
  if (existsSync(cliEntry)) chmodSync(cliEntry, 0o755);
  utimesSync(distEntry, started, started);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const force = process.argv.includes("--force");
  try {
    buildNative({ force });
    buildTypescript({ force });
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
