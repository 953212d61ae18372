// The shared corpus (../shared/corpus beside the checkout, as CI has it; CTXWIN_CORPUS elsewhere):
// xz-compressed text the benches read, never committed and never read by the tests.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

export const CORPUS = process.env.CTXWIN_CORPUS ?? join(import.meta.dirname, "..", "..", "..", "shared", "corpus");
export const CORPUS_CATEGORIES = ["prose", "code", "cjk", "euro"] as const;

export function read(name: string): string {
  return execFileSync("xz", ["-dc", join(CORPUS, name)], { maxBuffer: 1 << 30 }).toString("utf8");
}

export function corpusAvailable(): boolean {
  return CORPUS_CATEGORIES.every((c) => existsSync(join(CORPUS, `${c}.txt.xz`)));
}

/** The longest start of `text` of at most `bytes` bytes of UTF-8, never inside a character. */
export function firstBytes(text: string, bytes: number): string {
  let chars = 0;
  for (let size = 0; chars < text.length; ) {
    const code = text.codePointAt(chars) as number;
    const width = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (size + width > bytes) break;
    size += width;
    chars += code >= 0x10000 ? 2 : 1;
  }
  return text.slice(0, chars);
}
