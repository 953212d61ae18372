// Makes a checkout ready to run: system packages, npm dependencies, the native addon, its
// WebAssembly build and the TypeScript API.
// `npm test`, `npm run demo` and `npm run bench` call it first, so each works as the first command
// after `git clone`. Every step is skipped when it is already done.
import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureSystemPackages } from "./system-deps.mjs";
import { root, buildNative, buildTypescript } from "./build.mjs";
import { buildWasm } from "./build-wasm.mjs";
import { installCompatProject } from "./compat.mjs";

function mtime(path) {
  return existsSync(path) ? statSync(path).mtimeMs : -1;
}

/**
 * The package manager that runs this script (`pnpm test` sets npm_config_user_agent to
 * "pnpm/..."), else the one whose lockfile or tree the checkout has, else npm. Installing with
 * another manager than the one that made node_modules would rebuild it in another layout.
 */
export function packageManager(env = process.env, dir = root) {
  const agent = /^(npm|pnpm|yarn|bun)\//.exec(env.npm_config_user_agent ?? "")?.[1];
  if (agent === "npm" || agent === "pnpm") return agent;
  if (
    existsSync(join(dir, "node_modules", ".modules.yaml")) ||
    (existsSync(join(dir, "pnpm-lock.yaml")) && !existsSync(join(dir, "package-lock.json")))
  )
    return "pnpm";
  return "npm";
}

/** What each manager writes when it installs, and the lockfile it reads. */
const MANAGERS = {
  npm: {
    installed: join("node_modules", ".package-lock.json"),
    lock: "package-lock.json",
    install: (lock) => (lock && process.env.CI ? ["ci"] : ["install"]),
  },
  // package-lock.json is the checkout's one lockfile; pnpm resolves the same ranges without one.
  pnpm: {
    installed: join("node_modules", ".modules.yaml"),
    lock: "pnpm-lock.yaml",
    install: (lock) => (lock && process.env.CI ? ["install", "--frozen-lockfile"] : ["install"]),
  },
};

function dependenciesAreStale(manager) {
  const installed = join(root, MANAGERS[manager].installed);
  if (!existsSync(installed)) return true;
  return mtime(installed) < Math.max(mtime(join(root, "package.json")), mtime(join(root, MANAGERS[manager].lock)));
}

/** The command that runs `manager`: the one running this script when it is that manager. */
function managerCommand(manager) {
  const execPath = process.env.npm_execpath;
  if (execPath && packageManager({ npm_config_user_agent: process.env.npm_config_user_agent }) === manager && /\.c?js$/.test(execPath)) {
    return [process.execPath, execPath];
  }
  return [process.platform === "win32" ? `${manager}.cmd` : manager];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bootstrap();

async function bootstrap() {
  try {
    if (!ensureSystemPackages({ needTests: true })) process.exit(1);
    const manager = packageManager();
    if (dependenciesAreStale(manager)) {
      const { lock, install } = MANAGERS[manager];
      const args = install(existsSync(join(root, lock)));
      console.log(`ctxwin: ${manager} ${args.join(" ")}`);
      const [command, ...prefix] = managerCommand(manager);
      execFileSync(command, [...prefix, ...args, ...(manager === "npm" ? ["--no-audit", "--no-fund"] : [])], {
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
}
