// ccache in front of the C and C++ compilers of every build (the addon's CMake build, the
// sanitizer and fuzz build, the WebAssembly build's em++ and emcc), when it is installed.
//
// Why: CI compiles the same core three times from a fresh clone (release, ASan + UBSan, em++),
// about a third of a run kept under 45 minutes on 2 cores, and a contributor's clean rebuild
// repeats it. ccache answers a compile it has seen from its cache and compiles anything else as
// before; a changed source, header, flag or compiler is a miss. The cache is shared by every
// clone on the machine: paths under the checkout are hashed relative to it (CCACHE_BASEDIR) and
// the build folder is left out of the hash (CCACHE_NOHASHDIR: the sanitizer build's debug
// information names the clone that filled the cache; reports still give file and line).
//
// CTXWIN_CCACHE=0 builds without it. Its own settings (CCACHE_DIR, default ~/.cache/ccache;
// CCACHE_MAXSIZE, default 5 GB) apply as usual. `ccache -s` shows the hits.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** True when ccache is on PATH and not turned off with CTXWIN_CCACHE=0. */
export function useCompilerCache(env = process.env) {
  if (env.CTXWIN_CCACHE === "0") return false;
  return spawnSync("sh", ["-c", "command -v ccache"], { stdio: "ignore" }).status === 0;
}

/** The environment a build runs with: `env` plus ccache's settings when it is used. */
export function compilerCacheEnv(env = process.env) {
  if (!useCompilerCache(env)) return env;
  return { ...env, CCACHE_BASEDIR: env.CCACHE_BASEDIR ?? root, CCACHE_NOHASHDIR: env.CCACHE_NOHASHDIR ?? "true" };
}

/** CMake's configure options that put ccache in front of the compilers, when it is used. */
export function compilerCacheCmakeOptions(env = process.env) {
  return useCompilerCache(env) ? ["-DCMAKE_C_COMPILER_LAUNCHER=ccache", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] : [];
}

/** `[command, args]` of one compile, behind ccache when it is used. */
export function cachedCompile(command, args, env = process.env) {
  return useCompilerCache(env) ? ["ccache", [command, ...args]] : [command, args];
}
