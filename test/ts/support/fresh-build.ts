// vitest's globalSetup: refuses to run the tests on a stale build. The tests import "ctxwin", which
// resolves to dist/ (compiled from ts/), and the core is build/ctxwin.node or its WebAssembly build
// (compiled from native/ and binding/): a source edited without a rebuild would be tested as it was
// before the edit, and pass. `npm test` rebuilds first (scripts/bootstrap.mjs); a bare
// `npx vitest run <file>` stops here instead, naming the file that is newer and the command.
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
// @ts-expect-error: a plain .mjs build script without types (what it exports is written below)
import * as buildScript from "../../../scripts/build.mjs";
// @ts-expect-error: a plain .mjs build script without types
import * as wasmScript from "../../../scripts/build-wasm.mjs";

const { addonPath, mtime, NATIVE_SOURCES, newestSource, root, TYPESCRIPT_SOURCES, typescriptOutput } = buildScript as {
  addonPath: string;
  mtime(path: string): number;
  NATIVE_SOURCES: readonly string[];
  newestSource(paths: readonly string[]): { mtimeMs: number; path: string };
  root: string;
  TYPESCRIPT_SOURCES: readonly string[];
  typescriptOutput: string;
};
const { wasmEntry, webWasmDir } = wasmScript as { wasmEntry: string; webWasmDir: string };

/** Each build whose output is missing or older than one of its sources, with a line saying which. */
export function staleBuilds(): string[] {
  const stale: string[] = [];
  const check = (output: string, builtAt: number, sources: readonly string[], command: string) => {
    const newest = newestSource(sources);
    if (builtAt < 0) stale.push(`${relative(root, output)} is missing: run \`${command}\``);
    else if (builtAt < newest.mtimeMs) stale.push(`${relative(root, output)} is older than ${newest.path}: run \`${command}\``);
  };
  check(typescriptOutput, mtime(typescriptOutput), TYPESCRIPT_SOURCES, "node scripts/build.mjs");
  // The addon and the WebAssembly build are checked when they exist: without the addon the loader
  // takes the WebAssembly build, and without that it fails with its own message.
  if (existsSync(addonPath)) check(addonPath, mtime(addonPath), NATIVE_SOURCES, "node scripts/build.mjs");
  // The two WebAssembly builds are linked from the same objects; the older one stands for both.
  const wasmBuiltAt = Math.min(mtime(wasmEntry), mtime(join(webWasmDir, "ctxwin.wasm")));
  // Its inputs are build-wasm.mjs's own (native/, binding/ and the script): it does not read
  // CMakeLists.txt, and would not rebuild after an edit there.
  if (existsSync(wasmEntry)) check(wasmEntry, wasmBuiltAt, ["native", "binding", "scripts/build-wasm.mjs"], "node scripts/build-wasm.mjs");
  return stale;
}

export default function setup(): void {
  const stale = staleBuilds();
  if (stale.length === 0) return;
  // Printed and exited rather than thrown: vitest would bury a thrown error under its own report
  // ("No test files found" and a stack of its internals).
  console.error(
    `ctxwin: the tests would run on a stale build:\n  ${stale.join("\n  ")}\n` +
      "(`npm test` rebuilds what is stale before it runs the tests; `node scripts/bootstrap.mjs` does only that.)",
  );
  process.exit(1);
}
