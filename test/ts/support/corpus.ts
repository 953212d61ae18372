// The shared benchmark corpus (../shared/corpus), decompressed on demand.
import { execFileSync } from "node:child_process";
import { join } from "node:path";

export const CORPUS_DIR = join(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..", "..", "..", "..", "shared", "corpus");
export const CATEGORIES = ["prose", "code", "cjk", "euro"] as const;


export function readCategory(name: (typeof CATEGORIES)[number] | "chat"): string {
  const file = join(CORPUS_DIR, name === "chat" ? "chat.json.xz" : `${name}.txt.xz`);
  return execFileSync("xz", ["-dc", file], { maxBuffer: 1 << 30 }).toString("utf8");
}

/** Documents of a category (separated by blank lines, as the corpus README says). */
export function documents(name: (typeof CATEGORIES)[number]): string[] {
  return readCategory(name).split("\n\n");
}
