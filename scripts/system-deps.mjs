// The system packages the native build needs, and how to get them on Debian/Ubuntu.
//
// Plain Node with no dependencies: this runs before `npm install` on a fresh clone.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

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
];

function hasCommand(name) {
  return spawnSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" }).status === 0;
}

function existsAny(paths) {
  return paths.some((p) => existsSync(p));
}

function pkgConfigHas(name) {
  return hasCommand("pkg-config") && spawnSync("pkg-config", ["--exists", name], { stdio: "ignore" }).status === 0;
}

/** The Debian packages whose files are missing. `needTests: false` leaves GoogleTest out. */
export function missingSystemPackages({ needTests = true } = {}) {
  return REQUIREMENTS.filter((r) => (needTests || r.pkg !== "libgtest-dev") && !r.probe()).map((r) => r.pkg);
}

export function installCommand(packages) {
  return `apt-get install -y --no-install-recommends ${packages.join(" ")}`;
}

/**
 * Installs what is missing when running as root on a system with apt-get; otherwise prints the
 * exact command and returns false.
 */
export function ensureSystemPackages({ needTests = true, log = console.log } = {}) {
  const missing = missingSystemPackages({ needTests });
  if (missing.length === 0) return true;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!isRoot || !hasCommand("apt-get")) {
    const prefix = hasCommand("apt-get") ? "sudo " : "";
    log(`ctxwin: missing system packages: ${missing.join(", ")}`);
    log(hasCommand("apt-get")
      ? `ctxwin: install them with:\n  ${prefix}apt-get update && ${prefix}${installCommand(missing)}`
      : "ctxwin: install a C++20 compiler, CMake, pkg-config, nlohmann_json, utf8proc, PCRE2 and GoogleTest with your system's package manager.");
    return false;
  }
  log(`ctxwin: installing system packages: ${missing.join(", ")}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], { stdio: "inherit", env });
  const still = missingSystemPackages({ needTests });
  if (still.length > 0) throw new Error(`ctxwin: still missing after apt-get: ${still.join(", ")}`);
  return true;
}
