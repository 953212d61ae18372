// Builds the native addon from source in an installed package, on request:
//
//   node node_modules/ctxwin/scripts/build-from-source.mjs
//
// The package has no install script: installing runs no compiler and needs no approval from
// package managers that block scripts (pnpm 10+, npm with --ignore-scripts). It ships a prebuilt
// addon (prebuilds/linux-x64, glibc >= 2.35) and the WebAssembly build of the same core
// (prebuilds/wasm), and the loader (dist/runtime/native.js) picks one when the package is first
// imported. Elsewhere (another platform, an older glibc) this script builds build/ctxwin.node,
// which the loader prefers to the prebuilt one. It needs cmake, a C++20 compiler, pkg-config,
// nlohmann-json3-dev and libutf8proc-dev; Node-API's headers come from node-addon-api and
// node-api-headers, installed here for the build when the package does not have them.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { root, buildNative } from "./build.mjs";

const BUILD_DEPENDENCIES = ["node-addon-api@^8.5.0", "node-api-headers@^1.5.0"];

function resolvable(name) {
  try {
    createRequire(join(root, "package.json")).resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

try {
  const missing = BUILD_DEPENDENCIES.filter((spec) => !resolvable(spec.slice(0, spec.lastIndexOf("@"))));
  if (missing.length > 0) {
    console.log(`ctxwin: installing the build's headers (${missing.join(", ")}) into ${root}`);
    execFileSync(process.platform === "win32" ? "npm.cmd" : "npm", ["install", "--no-save", "--no-package-lock", "--ignore-scripts", "--no-audit", "--no-fund", ...missing], { cwd: root, stdio: "inherit" });
  }
  console.log("ctxwin: building the native addon from source");
  buildNative({ force: true });
  const entry = pathToFileURL(join(root, "dist", "index.js")).href;
  const backend = execFileSync(process.execPath, ["--input-type=module", "-e", `import(${JSON.stringify(entry)}).then((m) => console.log(m.backend))`], {
    encoding: "utf8",
    env: { ...process.env, CTXWIN_BACKEND: "native" },
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
  console.log(`ctxwin: built ${join(root, "build", "ctxwin.node")}; the package now runs on the ${backend} backend`);
  if (!existsSync(join(root, "build", "ctxwin.node"))) process.exit(1);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
