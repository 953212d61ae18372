// npm's install hook. Installing the package runs no compiler: it ships a prebuilt addon
// (prebuilds/linux-x64, glibc >= 2.35) and the WebAssembly build of the same core
// (prebuilds/wasm), and the loader (ts/runtime/native.ts) picks one when the package is imported.
// Package managers that block or skip install scripts (npm 11, pnpm 10, --ignore-scripts) lose
// nothing: this hook only reports which backend will run.
//
// A source build happens only when asked for: `npm install ctxwin --build-from-source` (npm sets
// npm_config_build_from_source) or CTXWIN_BUILD_FROM_SOURCE=1. It needs cmake, a C++20 compiler,
// pkg-config, nlohmann-json3-dev and libutf8proc-dev, and writes build/ctxwin.node, which the
// loader prefers to the prebuilt one.
//
// In a source checkout (ts/ is there; `npm install` in the repository) it builds what is stale,
// as it always did: scripts/bootstrap.mjs has installed the system packages first.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { root, buildNative, buildTypescript } from "./build.mjs";

const truthy = (value) => value !== undefined && !["", "0", "false", "no"].includes(String(value).toLowerCase());
const fromSource = truthy(process.env.npm_config_build_from_source) || truthy(process.env.CTXWIN_BUILD_FROM_SOURCE);
const checkout = existsSync(join(root, "ts")) && existsSync(join(root, "tsconfig.json"));

try {
  if (checkout) {
    buildNative();
    buildTypescript();
  } else if (fromSource) {
    console.log("ctxwin: building the native addon from source (--build-from-source)");
    buildNative({ force: true });
  }
  if (!checkout) {
    // Which backend an import gets, said once here rather than discovered later.
    const entry = pathToFileURL(join(root, "dist", "index.js")).href;
    const backend = execFileSync(process.execPath, ["--input-type=module", "-e", `import(${JSON.stringify(entry)}).then((m) => console.log(m.backend))`], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }).trim();
    console.log(`ctxwin: ready, ${backend === "native" ? "native addon" : "WebAssembly build"}`);
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
