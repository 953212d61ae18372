// A scratch project where some packages are not installed, for the tests of what ctxwin does
// without an optional framework. Its node_modules holds links to every package of this checkout's
// but the hidden ones, and ctxwin as an installed package: a folder of links to the checkout's
// dist/, prebuilds/, build/ and package.json, with no node_modules of its own. Programs run there
// with --preserve-symlinks, so that Node resolves from the links' paths (not from the checkout,
// whose node_modules has every framework) and finds no copy of the hidden packages, through
// `import` or `require`, as on a machine where they were never installed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const checkout = resolve(fileURLToPath(import.meta.url), "..", "..", "..", "..");

export interface ScratchProject {
  readonly dir: string;
  /** Runs a CommonJS program (it may `await import()` inside an async function) and returns what it printed on stdout. */
  runCommonJs(source: string): string;
  remove(): void;
}

export function projectWithout(hidden: readonly string[]): ScratchProject {
  const dir = mkdtempSync(join(tmpdir(), "ctxwin-without-"));
  const modules = join(dir, "node_modules");
  mkdirSync(modules);
  const linked = new Set<string>();
  const link = (name: string, from: string): void => {
    if (hidden.includes(name) || name === "ctxwin" || linked.has(name)) return;
    symlinkSync(from, join(modules, name));
    linked.add(name);
  };
  const linkAll = (from: string): void => {
    for (const entry of readdirSync(from)) {
      if (entry.startsWith(".")) continue;
      if (entry.startsWith("@")) {
        mkdirSync(join(modules, entry), { recursive: true });
        for (const scoped of readdirSync(join(from, entry))) link(`${entry}/${scoped}`, join(from, entry, scoped));
      } else {
        link(entry, join(from, entry));
      }
    }
  };
  linkAll(join(checkout, "node_modules"));
  // pnpm keeps only direct dependencies at the top; the packages they need are in its virtual
  // store, found through node_modules/.pnpm/node_modules, which links every package of the
  // install. With --preserve-symlinks a package resolves its own dependencies from the link's
  // path, so those are linked too, after the top level (whose versions win).
  const pnpmHoisted = join(checkout, "node_modules", ".pnpm", "node_modules");
  if (existsSync(pnpmHoisted)) linkAll(pnpmHoisted);
  const ctxwin = join(modules, "ctxwin");
  mkdirSync(ctxwin);
  for (const part of ["package.json", "dist", "prebuilds", "build"]) {
    if (existsSync(join(checkout, part))) symlinkSync(join(checkout, part), join(ctxwin, part));
  }
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: "scratch", private: true })}\n`);
  let programs = 0;
  return {
    dir,
    runCommonJs(source) {
      const file = join(dir, `program-${programs++}.cjs`);
      writeFileSync(file, source);
      const run = spawnSync(process.execPath, ["--preserve-symlinks", file], { cwd: dir, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
      if (run.status !== 0) throw new Error(`the program failed (${run.status}): ${run.stderr}`);
      return run.stdout;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
