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
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { addonPath, buildDir, buildNative, buildTypescript, SOURCES, SOURCES_ARCHIVE } from "./build.mjs";
import { packSources, stageAddon } from "./stage-prebuilt.mjs";
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
    const prebuilt = stageAddon();
    console.log(`ctxwin: ${prebuilt} (needs glibc >= ${newest ?? "?"})`);
  } else {
    console.warn(`ctxwin: packing on ${process.platform}-${process.arch}: no linux-x64 prebuilt in this tarball`);
  }
  const archive = packSources();
  console.log(`ctxwin: ${SOURCES_ARCHIVE} (${SOURCES.join(", ")}): ${statSync(archive).size} bytes`);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}

function compare(a, b) {
  const x = a.split(".").map(Number);
  const y = b.split(".").map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  }
  return 0;
}
