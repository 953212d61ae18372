// Makes a checkout ready to run: system packages, npm dependencies, the native addon, its
// WebAssembly build and the TypeScript API.
// `npm test`, `npm run demo` and `npm run bench` call it first, so each works as the first command
// after `git clone`. Every step is skipped when it is already done.
import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { ensureSystemPackages } from "./system-deps.mjs";
import { root, buildNative, buildTypescript } from "./build.mjs";
import { buildWasm } from "./build-wasm.mjs";
import { installCompatProject } from "./compat.mjs";

function mtime(path) {
  return existsSync(path) ? statSync(path).mtimeMs : -1;
}

function dependenciesAreStale() {
  const installed = join(root, "node_modules", ".package-lock.json");
  if (!existsSync(installed)) return true;
  return mtime(installed) < Math.max(mtime(join(root, "package.json")), mtime(join(root, "package-lock.json")));
}

try {
  if (!ensureSystemPackages({ needTests: true })) process.exit(1);
  if (dependenciesAreStale()) {
    const lock = existsSync(join(root, "package-lock.json"));
    const args = lock && process.env.CI ? ["ci"] : ["install"];
    console.log(`ctxwin: npm ${args.join(" ")}`);
    // npm runs the package's install script, which builds the addon and dist/.
    execFileSync(process.platform === "win32" ? "npm.cmd" : "npm", [...args, "--no-audit", "--no-fund"], {
      cwd: root,
      stdio: "inherit",
    });
  }
  buildNative();
  await buildWasm();
  buildTypescript();
  installCompatProject();
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
