// A scratch project where some packages are not installed, for the tests of what ctxwin does
// without an optional framework. Its node_modules holds links to every package of this checkout's
// but the hidden ones, and ctxwin as an installed package: its own copy of the checkout's dist/
// (where ctxwin's code resolves its frameworks from), with links to prebuilds/ and build/ (data
// and the addon, which import nothing) and its package.json. Node resolves each package from its
// real path, so ctxwin finds no copy of the hidden packages, through `import` or `require`, as on
// a machine where they were never installed, while every linked package finds its own
// dependencies where its install put them (npm's flat tree or pnpm's store, with the versions
// each one asked for).
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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
  const link = (name: string, from: string): void => {
    if (hidden.includes(name) || name === "ctxwin") return;
    symlinkSync(from, join(modules, name));
  };
  for (const entry of readdirSync(join(checkout, "node_modules"))) {
    if (entry.startsWith(".")) continue;
    if (entry.startsWith("@")) {
      mkdirSync(join(modules, entry));
      for (const scoped of readdirSync(join(checkout, "node_modules", entry)))
        link(`${entry}/${scoped}`, join(checkout, "node_modules", entry, scoped));
    } else {
      link(entry, join(checkout, "node_modules", entry));
    }
  }
  const ctxwin = join(modules, "ctxwin");
  mkdirSync(ctxwin);
  cpSync(join(checkout, "dist"), join(ctxwin, "dist"), { recursive: true });
  copyFileSync(join(checkout, "package.json"), join(ctxwin, "package.json"));
  for (const part of ["prebuilds", "build"]) {
    if (existsSync(join(checkout, part))) symlinkSync(join(checkout, part), join(ctxwin, part));
  }
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: "scratch", private: true })}\n`);
  let programs = 0;
  return {
    dir,
    runCommonJs(source) {
      const file = join(dir, `program-${programs++}.cjs`);
      writeFileSync(file, source);
      const run = spawnSync(process.execPath, [file], { cwd: dir, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
      if (run.status !== 0) throw new Error(`the program failed (${run.status}): ${run.stderr}`);
      return run.stdout;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
