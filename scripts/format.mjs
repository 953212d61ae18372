// The formatter and linter: Biome for the TypeScript and JavaScript (biome.jsonc), clang-format for
// the C++ (.clang-format).
//
//   node scripts/format.mjs           format every file in place, and apply Biome's safe lint fixes
//   node scripts/format.mjs --check   change nothing; fail on a file not formatted or a lint finding
//
// `npm run format` and `npm run lint` run these; .ci/run runs the check. The C++ files are the
// repository's (tracked, or new and not ignored), less the generated catalog (npm run catalog).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { root } from "./build.mjs";

const CXX_FOLDERS = ["native", "binding", "test/native", "test/fuzz", "bench/native"];
const CXX_FILE = /\.(cpp|hpp|cc|h)$/;
/** Made by scripts/catalog/generate.mjs: formatted as it writes it. */
const GENERATED = new Set(["native/src/catalog/catalog_data.cpp"]);

export function cxxFiles() {
  const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "--", ...CXX_FOLDERS], {
    cwd: root,
    encoding: "utf8",
  });
  return [...new Set(listed.split("\n"))].filter((f) => CXX_FILE.test(f) && !GENERATED.has(f) && existsSync(join(root, f))).sort();
}

function run(command, args) {
  return spawnSync(command, args, { cwd: root, stdio: "inherit" }).status === 0;
}

function clangFormat(files, check) {
  if (spawnSync("clang-format", ["--version"], { stdio: "ignore" }).status !== 0) {
    console.error("ctxwin: clang-format is missing: apt-get install clang-format (node scripts/bootstrap.mjs installs it as root)");
    return false;
  }
  // In batches: one process per file would cost more than the formatting.
  let ok = true;
  for (let i = 0; i < files.length; i += 50) {
    const batch = files.slice(i, i + 50);
    ok = run("clang-format", check ? ["--dry-run", "--Werror", ...batch] : ["-i", ...batch]) && ok;
  }
  return ok;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check");
  const biome = join(root, "node_modules", "@biomejs", "biome", "bin", "biome");
  if (!existsSync(biome)) {
    console.error("ctxwin: Biome is not installed: run npm install (it is a dev dependency)");
    process.exit(1);
  }
  let ok;
  if (check) {
    // Warnings fail too: a lint that passes with findings is soon ignored.
    ok = run(process.execPath, [biome, "check", "--error-on-warnings", "."]);
  } else {
    // Twice: Biome 2.6 formats a few long signatures differently on a second pass (3 files of
    // this tree); the second pass is the fixed point the check expects.
    run(process.execPath, [biome, "check", "--write", "."]);
    ok = run(process.execPath, [biome, "check", "--write", "."]);
  }
  const files = cxxFiles();
  ok = clangFormat(files, check) && ok;
  console.log(
    `ctxwin: ${check ? "checked" : "formatted"} the TypeScript and JavaScript (Biome) and ${files.length} C++ files (clang-format)`,
  );
  if (!ok) {
    console.error(
      check
        ? "ctxwin: lint failed (above); `npm run format` fixes what formatting can"
        : "ctxwin: some files could not be formatted (above)",
    );
    process.exit(1);
  }
}
