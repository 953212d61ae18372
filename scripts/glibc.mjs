// What a Linux binary asks of glibc: the GLIBC_x.y symbol versions in its dynamic symbol table
// (objdump -T). The prebuilt addon must load on glibc 2.35 (Ubuntu 22.04) and newer.
import { execFileSync } from "node:child_process";

export const MAX_GLIBC = "2.35";

/** The distinct GLIBC_ versions `path` references, oldest first. */
export function glibcVersionsOf(path) {
  const table = execFileSync("objdump", ["-T", path], { encoding: "utf8" });
  const versions = new Set([...table.matchAll(/\bGLIBC_(\d+(?:\.\d+)+)\b/g)].map((m) => m[1]));
  return [...versions].sort((a, b) => {
    const x = a.split(".").map(Number);
    const y = b.split(".").map(Number);
    return x[0] - y[0] || (x[1] ?? 0) - (y[1] ?? 0) || (x[2] ?? 0) - (y[2] ?? 0);
  });
}
