// Loading an adapter's framework (an optional peer dependency) synchronously, while the subpath is
// imported or required, so that the subpath has no top-level await: `require()` cannot load an ES
// module that has one (ERR_REQUIRE_ASYNC_MODULE), and the missing-framework error still comes at
// import or require time, as soon as the subpath loads.
//
// The framework is loaded in the module system of the build that runs, so that the application
// and the adapter share one copy of it (one `BaseListChatMessageHistory`, one `AIMessage`):
// - in the ESM build, resolved as `import` resolves it (the framework's ESM entry) and loaded with
//   require(esm) (Node 20.19+ and 22.12+, Deno, Bun): the module instance the application's own
//   `import` gets, since both go through the one ESM module cache;
// - in the CommonJS build (scripts/build-cjs.mjs defines `import.meta.resolve` as undefined there),
//   resolved and loaded by `require`: the CommonJS entry the application's own `require` gets.
// A Node without require(esm) (20.0 to 20.18, 22.0 to 22.11) loads the CommonJS entry from the ESM
// build as well: the subpath works, with the framework loaded twice if the application imports it.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { missingPeer, type PeerPackage } from "./require-peer.js";

const require = createRequire(import.meta.url);

/** require(esm) is not there, or the module has a top-level await: the CommonJS entry will do. */
const NO_REQUIRE_ESM = new Set(["ERR_REQUIRE_ESM", "ERR_REQUIRE_ASYNC_MODULE"]);

/** The module `specifier` loaded now as the file comment says; the loader's own error when it does not load. */
export function loadFramework(specifier: string): unknown {
  // Called on import.meta itself: Bun refuses an unbound import.meta.resolve.
  if (typeof (import.meta.resolve as ImportMeta["resolve"] | undefined) !== "function") return require(specifier);
  const path = fileURLToPath(import.meta.resolve(specifier));
  try {
    return require(path);
  } catch (error) {
    if (NO_REQUIRE_ESM.has(String((error as { code?: unknown } | null)?.code))) return require(specifier);
    throw error;
  }
}

/**
 * The module `specifier` of a framework that `subpath` (e.g. "ai-sdk") needs, loaded now; when it
 * is not installed (or does not load), the coded error of `peer` naming the command that installs
 * it, with the loader's error as its `cause`.
 */
export function loadPeer<T>(specifier: string, subpath: string, peer: PeerPackage): T {
  try {
    return loadFramework(specifier) as T;
  } catch (cause) {
    throw missingPeer(`ctxwin/${subpath}`, peer, cause);
  }
}
