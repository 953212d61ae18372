// Builds the native addon from source in an installed package, on request:
//
//   node node_modules/ctxwin/scripts/build-from-source.mjs
//
// The package has no install script: installing runs no compiler and needs no approval from
// package managers that block scripts (pnpm 10+, npm with --ignore-scripts). It ships a prebuilt
// addon (prebuilds/linux-x64, glibc >= 2.35) and the WebAssembly build of the same core
// (prebuilds/wasm), and the loader (dist/runtime/native.js) picks one when the package is first
// imported. Elsewhere (another platform, an older glibc) this script builds build/ctxwin.node,
// which the loader prefers to the prebuilt one (the C++ sources come as native-sources.tar.gz,
// unpacked here first). It needs cmake, a C++20 compiler, pkg-config,
// nlohmann-json3-dev and libutf8proc-dev; Node-API's headers come from node-addon-api and
// node-api-headers, installed into build/ for the build when they are not at hand.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { root, buildDir, buildNative, SOURCES_ARCHIVE } from "./build.mjs";

const BUILD_DEPENDENCIES = ["node-addon-api@^8.5.0", "node-api-headers@^1.5.0"];

/** The folders of node-addon-api's and node-api-headers' headers, as `require` finds the packages. */
function headerFolders(require) {
  return {
    addonApi: dirname(require.resolve("node-addon-api/package.json")),
    apiHeaders: require("node-api-headers").include_dir,
  };
}

/**
 * The folders of Node-API's headers: from the packages beside ctxwin when they are installed (a
 * checkout, or an application that has them), else installed for the build alone into
 * build/node-api-headers/, not into the package: `npm install` inside an installed package would
 * install its development dependencies too.
 */
function nodeApiHeaders() {
  try {
    return headerFolders(createRequire(join(root, "package.json")));
  } catch {
    const folder = join(buildDir, "node-api-headers");
    mkdirSync(folder, { recursive: true });
    console.log(`ctxwin: installing the build's headers (${BUILD_DEPENDENCIES.join(", ")}) into ${folder}`);
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    execFileSync(
      npm,
      [
        "install",
        "--prefix",
        folder,
        "--no-save",
        "--no-package-lock",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        ...BUILD_DEPENDENCIES,
      ],
      {
        cwd: folder,
        stdio: "inherit",
        shell: process.platform === "win32",
      },
    );
    return headerFolders(createRequire(join(folder, "package.json")));
  }
}

/**
 * The tarball carries the C++ sources as one archive (scripts/prepack.mjs): unpacked beside it on
 * the first source build, left alone in a checkout, which has them.
 */
function unpackSources() {
  if (existsSync(join(root, "CMakeLists.txt"))) return;
  const archive = join(root, SOURCES_ARCHIVE);
  if (!existsSync(archive))
    throw new Error(`ctxwin: neither ${join(root, "CMakeLists.txt")} nor ${archive}: this package has no C++ sources to build`);
  console.log(`ctxwin: unpacking ${archive}`);
  execFileSync("tar", ["-xzf", archive, "-C", root], { stdio: "inherit" });
}

try {
  unpackSources();
  const headers = nodeApiHeaders();
  console.log("ctxwin: building the native addon from source");
  buildNative({ force: true, cmakeOptions: [`-DNODE_ADDON_API_DIR=${headers.addonApi}`, `-DNODE_API_HEADERS_DIR=${headers.apiHeaders}`] });
  if (!existsSync(join(root, "build", "ctxwin.node"))) throw new Error(`ctxwin: the build made no ${join(root, "build", "ctxwin.node")}`);
  const entry = pathToFileURL(join(root, "dist", "index.js")).href;
  const backend = execFileSync(
    process.execPath,
    ["--input-type=module", "-e", `import(${JSON.stringify(entry)}).then((m) => console.log(m.backend))`],
    {
      encoding: "utf8",
      env: { ...process.env, CTXWIN_BACKEND: "native" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  ).trim();
  console.log(`ctxwin: built ${join(root, "build", "ctxwin.node")}; the package now runs on the ${backend} backend`);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
