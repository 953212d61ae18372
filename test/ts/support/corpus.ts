// The shared benchmark corpus (../shared/corpus), decompressed on demand.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const here = import.meta.dirname ?? new URL(".", import.meta.url).pathname;
// ../shared/corpus beside the repository; a git worktree one folder deeper (wt/<name>) finds it one further up.
export const CORPUS_DIR =
  [join(here, "..", "..", "..", "..", "shared", "corpus"), join(here, "..", "..", "..", "..", "..", "shared", "corpus")].find((dir) => existsSync(join(dir, "prose.txt.xz"))) ??
  join(here, "..", "..", "..", "..", "shared", "corpus");
export const CATEGORIES = ["prose", "code", "cjk", "euro"] as const;


export function readCategory(name: (typeof CATEGORIES)[number] | "chat"): string {
  const file = join(CORPUS_DIR, name === "chat" ? "chat.json.xz" : `${name}.txt.xz`);
  return execFileSync("xz", ["-dc", file], { maxBuffer: 1 << 30 }).toString("utf8");
}

/** Documents of a category (separated by blank lines, as the corpus README says). */
export function documents(name: (typeof CATEGORIES)[number]): string[] {
  return readCategory(name).split("\n\n");
}
