// The system packages the native build needs, and how to get them on Debian/Ubuntu.
//
// Plain Node with no dependencies: this runs before `npm install` on a fresh clone.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Debian package -> a probe that is true when what the build needs from it is present. */
const REQUIREMENTS = [
  { pkg: "cmake", probe: () => hasCommand("cmake") },
  { pkg: "g++", probe: () => hasCommand("g++") || hasCommand("c++") },
  { pkg: "make", probe: () => hasCommand("make") || hasCommand("ninja") },
  { pkg: "pkg-config", probe: () => hasCommand("pkg-config") },
  { pkg: "nlohmann-json3-dev", probe: () => existsAny(["/usr/include/nlohmann/json.hpp", "/usr/local/include/nlohmann/json.hpp"]) },
  { pkg: "libutf8proc-dev", probe: () => pkgConfigHas("libutf8proc") },
  { pkg: "libpcre2-dev", probe: () => pkgConfigHas("libpcre2-8") },
  { pkg: "libgtest-dev", probe: () => existsAny(["/usr/include/gtest/gtest.h", "/usr/local/include/gtest/gtest.h"]) },
  // The session-store tests and benchmarks run a real Redis server on a Unix socket.
  { pkg: "redis-server", probe: () => hasCommand("redis-server") },
  // The CLI's tests drive `ctxwin chat` in a pseudo-terminal that tmux provides.
  { pkg: "tmux", probe: () => hasCommand("tmux") },
  // The web entry's tests (test/web/run.mjs) run it in headless Chromium through playwright-core.
  { pkg: "chromium", probe: () => existsSync("/usr/bin/chromium") },
  // `npm run lint` checks the C++ with it (scripts/format.mjs).
  { pkg: "clang-format", probe: () => hasCommand("clang-format") },
  // The WebAssembly backend (scripts/build-wasm.mjs); dpkg-dev unpacks `apt-get source utf8proc`.
  { pkg: "emscripten", wasm: true, probe: () => hasCommand("em++") },
  { pkg: "dpkg-dev", wasm: true, probe: () => hasCommand("dpkg-source") },
];

/** Needed only to run the tests (and benchmarks), not to build or use the package. */
const TEST_ONLY = new Set(["libgtest-dev", "redis-server", "tmux", "chromium", "clang-format"]);

function hasCommand(name) {
  return spawnSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" }).status === 0;
}

function existsAny(paths) {
  return paths.some((p) => existsSync(p));
}

function pkgConfigHas(name) {
  return hasCommand("pkg-config") && spawnSync("pkg-config", ["--exists", name], { stdio: "ignore" }).status === 0;
}

/**
 * The Debian packages whose files are missing. `needTests: false` leaves out what only the tests
 * need (GoogleTest, Redis, tmux, Chromium); `needWasm: false` the WebAssembly toolchain.
 */
export function missingSystemPackages({ needTests = true, needWasm = needTests } = {}) {
  return REQUIREMENTS.filter((r) => (needTests || !TEST_ONLY.has(r.pkg)) && (needWasm || !r.wasm) && !r.probe()).map((r) => r.pkg);
}

export function installCommand(packages) {
  return `apt-get install -y --no-install-recommends ${packages.join(" ")}`;
}

/**
 * Installs what is missing when running as root on a system with apt-get; otherwise prints the
 * exact command and returns false.
 */
export function ensureSystemPackages({ needTests = true, needWasm = needTests, log = console.log } = {}) {
  const required = missingSystemPackages({ needTests, needWasm });
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const canInstall = isRoot && hasCommand("apt-get");
  // Installed along where apt-get can, never asked for where it cannot: ccache
  // (scripts/compiler-cache.mjs) only makes rebuilds faster; wamerican's word list is what `npm run
  // bench` draws its generated dictionary words from (bench/text/words.ts: synthetic words without
  // it, and then the held-out figures are not the published ones').
  const optional = [...(hasCommand("ccache") ? [] : ["ccache"]), ...(existsSync("/usr/share/dict/words") ? [] : ["wamerican"])];
  const missing = [...required, ...(needTests && canInstall ? optional : [])];
  if (missing.length === 0) return true;
  if (!canInstall) {
    const prefix = hasCommand("apt-get") ? "sudo " : "";
    log(`ctxwin: missing system packages: ${missing.join(", ")}`);
    log(
      hasCommand("apt-get")
        ? `ctxwin: install them with:\n  ${prefix}apt-get update && ${prefix}${installCommand(missing)}`
        : "ctxwin: install a C++20 compiler, CMake, pkg-config, nlohmann_json, utf8proc, PCRE2, GoogleTest and redis-server with your system's package manager.",
    );
    return false;
  }
  log(`ctxwin: installing system packages: ${missing.join(", ")}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], { stdio: "inherit", env });
  const still = missingSystemPackages({ needTests, needWasm });
  if (still.length > 0) throw new Error(`ctxwin: still missing after apt-get: ${still.join(", ")}`);
  return true;
}

// ---------------------------------------------------------------- utf8proc's C source
// The WebAssembly build compiles utf8proc from the source of the very Debian package the native
// build links (`apt-get source utf8proc`), unpacked under build-wasm/src/.

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const sourceRoot = join(root, "build-wasm", "src");

function unpackedUtf8proc() {
  return unpackedSource(/^utf8proc-[0-9]/, "utf8proc.c");
}

function unpackedSource(pattern, marker) {
  if (!existsSync(sourceRoot)) return null;
  const dir = readdirSync(sourceRoot).find((name) => pattern.test(name) && existsSync(join(sourceRoot, name, marker)));
  return dir ? join(sourceRoot, dir) : null;
}

/**
 * The unpacked PCRE2 source (Debian's `pcre2`, for the WebAssembly build: tokenizer.json regexes);
 * fetched with `apt-get source` when missing and running as root, like utf8proc's.
 */
export function pcre2SourceDir({ log = console.log } = {}) {
  const found = unpackedSource(/^pcre2-[0-9]/, join("src", "pcre2_compile.c"));
  if (found) return found;
  utf8procSourceDir({ log }); // sets up deb-src entries (or explains how) the same way
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  log("ctxwin: apt-get source pcre2");
  execFileSync("apt-get", ["source", "-qq", "pcre2"], { cwd: sourceRoot, stdio: "inherit", env });
  const unpacked = unpackedSource(/^pcre2-[0-9]/, join("src", "pcre2_compile.c"));
  if (!unpacked) throw new Error(`ctxwin: apt-get source pcre2 left no src/pcre2_compile.c under ${sourceRoot}`);
  return unpacked;
}

function aptHasSourceIndex() {
  return spawnSync("apt-cache", ["showsrc", "utf8proc"], { encoding: "utf8" }).stdout?.includes("Package: utf8proc") ?? false;
}

/**
 * Adds deb-src entries for the archive the system's own `deb` entries name (the same URIs,
 * suites and components), so that `apt-get source` fetches the matching source package.
 */
function addDebSrcEntries(log) {
  const codename = /VERSION_CODENAME=(\S+)/.exec(existsSync("/etc/os-release") ? readFileSync("/etc/os-release", "utf8") : "")?.[1];
  const stanzas = [];
  const dir = "/etc/apt/sources.list.d";
  for (const name of existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith(".sources")) : []) {
    for (const stanza of readFileSync(join(dir, name), "utf8").split(/\n\s*\n/)) {
      const types = /^Types:\s*(.+)$/m.exec(stanza)?.[1].split(/\s+/) ?? [];
      const suites = /^Suites:\s*(.+)$/m.exec(stanza)?.[1].split(/\s+/) ?? [];
      if (types.includes("deb") && codename && suites.includes(codename)) {
        stanzas.push(
          stanza
            .trim()
            .split("\n")
            .filter((l) => !l.startsWith("#"))
            .join("\n")
            .replace(/^Types:.*$/m, "Types: deb-src"),
        );
      }
    }
  }
  const lines = [];
  for (const file of [
    "/etc/apt/sources.list",
    ...(existsSync(dir)
      ? readdirSync(dir)
          .filter((n) => n.endsWith(".list"))
          .map((n) => join(dir, n))
      : []),
  ]) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const m = /^deb\s+(.*)$/.exec(line.trim());
      if (m && codename && m[1].split(/\s+/).includes(codename)) lines.push(`deb-src ${m[1]}`);
    }
  }
  if (stanzas.length > 0) writeFileSync(join(dir, "ctxwin-deb-src.sources"), `${stanzas.join("\n\n")}\n`);
  else if (lines.length > 0) writeFileSync(join(dir, "ctxwin-deb-src.list"), `${lines.join("\n")}\n`);
  else throw new Error("ctxwin: found no Debian `deb` entry to mirror as deb-src for `apt-get source utf8proc`");
  log("ctxwin: added deb-src entries for the system's Debian archive (apt-get source utf8proc)");
}

/** The unpacked utf8proc source; fetched with `apt-get source` when missing and running as root. */
export function utf8procSourceDir({ log = console.log } = {}) {
  const found = unpackedUtf8proc();
  if (found) return found;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!isRoot || !hasCommand("apt-get")) {
    throw new Error(
      "ctxwin: the WebAssembly build needs utf8proc's source: add a deb-src line for your Debian archive, then\n" +
        `  mkdir -p ${sourceRoot} && cd ${sourceRoot} && apt-get source utf8proc`,
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  if (!aptHasSourceIndex()) {
    addDebSrcEntries(log);
    execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  }
  mkdirSync(sourceRoot, { recursive: true });
  log("ctxwin: apt-get source utf8proc");
  execFileSync("apt-get", ["source", "-qq", "utf8proc"], { cwd: sourceRoot, stdio: "inherit", env });
  const unpacked = unpackedUtf8proc();
  if (!unpacked) throw new Error(`ctxwin: apt-get source utf8proc left no utf8proc.c under ${sourceRoot}`);
  return unpacked;
}
