// `npm pack` / `npm publish` run this first: it puts into the tarball what lets an install run no
// compiler (prebuilds/ is not in git):
//   prebuilds/linux-x64/ctxwin.node   the Release addon (Node-API 8, static libstdc++/libgcc, only
//                                     the Node-API entry points exported), checked to need no
//                                     glibc newer than 2.35, stripped of its symbol tables (the
//                                     dynamic symbols Node loads it by stay: 3.2 MB -> 2.9 MB)
//   prebuilds/wasm/ctxwin.cjs and prebuilds/wasm-web/  the WebAssembly builds of the same core (one .wasm), for everywhere else
//   native-sources.tar.gz             native/, binding/ and CMakeLists.txt for a source build, which
//                                     scripts/build-from-source.mjs unpacks: 130 small files were
//                                     1.2 MB of node_modules at 4 KiB blocks, the archive is 0.2 MB
// and compiles dist/. Runs in a source checkout with the toolchain scripts/bootstrap.mjs installs.
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { root, addonPath, buildDir, buildNative, buildTypescript, SOURCES, SOURCES_ARCHIVE } from "./build.mjs";
import { buildWasm } from "./build-wasm.mjs";
import { glibcVersionsOf, MAX_GLIBC } from "./glibc.mjs";
import { ensureSystemPackages } from "./system-deps.mjs";

try {
  if (!ensureSystemPackages({ needTests: false, needWasm: true })) process.exit(1);
  buildTypescript();
  await buildWasm();
  if (process.platform === "linux" && process.arch === "x64") {
    const cache = join(buildDir, "CMakeCache.txt");
    if (existsSync(cache) && !/^CMAKE_BUILD_TYPE:STRING=Release$/m.test(readFileSync(cache, "utf8"))) {
      throw new Error(`ctxwin: ${buildDir} is not a Release build; remove it and pack again`);
    }
    buildNative();
    const newest = glibcVersionsOf(addonPath).at(-1);
    if (newest && compare(newest, MAX_GLIBC) > 0) {
      throw new Error(`ctxwin: ${addonPath} needs GLIBC_${newest}, newer than the ${MAX_GLIBC} the prebuilt promises`);
    }
    const dir = join(root, "prebuilds", "linux-x64");
    mkdirSync(dir, { recursive: true });
    const prebuilt = join(dir, "ctxwin.node");
    copyFileSync(addonPath, prebuilt);
    // Stripped here, not at link: build/ keeps the symbols for debuggers and sanitizer reports.
    execFileSync("strip", ["--strip-unneeded", prebuilt], { stdio: "inherit" });
    console.log(`ctxwin: prebuilds/linux-x64/ctxwin.node (needs glibc >= ${newest ?? "?"})`);
  } else {
    console.warn(`ctxwin: packing on ${process.platform}-${process.arch}: no linux-x64 prebuilt in this tarball`);
  }
  packSources();
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}

/** The C++ sources a source build needs, as one archive (`tar` is on every platform npm supports). */
function packSources() {
  const archive = join(root, SOURCES_ARCHIVE);
  execFileSync("tar", ["-czf", archive, "-C", root, ...SOURCES], { stdio: "inherit" });
  console.log(`ctxwin: ${SOURCES_ARCHIVE} (${SOURCES.join(", ")}): ${statSync(archive).size} bytes`);
}

function compare(a, b) {
  const x = a.split(".").map(Number);
  const y = b.split(".").map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  }
  return 0;
}
