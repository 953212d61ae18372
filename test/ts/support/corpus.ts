// Real text for the exactness and cache tests, taken from the repository and from what
// `npm install` brings, so that a fresh clone tests on its own (../shared/corpus is the benchmark
// corpus and stays out of the tests):
//   prose  the Markdown of the installed packages (READMEs, changelogs) and the repository's docs
//   code   the repository's C++, TypeScript and scripts, and TypeScript's lib/*.d.ts
//   cjk    TypeScript's diagnostic messages in Japanese, Korean, Simplified and Traditional Chinese
//   euro   the same messages in Czech, German, Spanish, French, Italian, Polish, Portuguese,
//          Turkish and Russian (accented Latin and Cyrillic)
// Each category is a list of documents; every list is sorted so that runs are reproducible.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const MODULES = join(ROOT, "node_modules");
export const CATEGORIES = ["prose", "code", "cjk", "euro"] as const;
export type Category = (typeof CATEGORIES)[number];

// Each category is capped so the whole suite, on both backends and against tiktoken, stays quick.
const CATEGORY_BYTES = 1_500_000;

function filesUnder(dir: string, accept: (name: string) => boolean): string[] {
  const out: string[] = [];
  const visit = (path: string) => {
    if (!existsSync(path)) return;
    for (const name of readdirSync(path).sort()) {
      const full = join(path, name);
      if (statSync(full).isDirectory()) visit(full);
      else if (accept(name)) out.push(full);
    }
  };
  visit(dir);
  return out;
}

/** The Markdown the installed packages ship (READMEs, changelogs, guides). */
function packageMarkdown(): string[] {
  return filesUnder(MODULES, (name) => name.endsWith(".md"));
}

function diagnosticMessages(locales: string[]): string[] {
  const documents: string[] = [];
  for (const locale of locales) {
    const file = join(MODULES, "typescript", "lib", locale, "diagnosticMessages.generated.json");
    const messages = Object.values(JSON.parse(readFileSync(file, "utf8")) as Record<string, string>);
    // 40 messages to a document: a few KB each, like a page of an agent's tool output.
    for (let i = 0; i < messages.length; i += 40) documents.push(messages.slice(i, i + 40).join("\n"));
  }
  return documents;
}

function documentsOfFiles(paths: string[]): string[] {
  return paths.flatMap((path) => readFileSync(path, "utf8").split("\n\n")).filter((doc) => doc.length > 0);
}

/** Interleaves the sources so that a cap keeps some of each. */
function capped(sources: string[][]): string[] {
  const out: string[] = [];
  let bytes = 0;
  for (let i = 0; ; i++) {
    let any = false;
    for (const source of sources) {
      const doc = source[i];
      if (doc === undefined) continue;
      any = true;
      if (bytes + doc.length > CATEGORY_BYTES) return out;
      out.push(doc);
      bytes += doc.length;
    }
    if (!any) return out;
  }
}

const cache = new Map<Category, string[]>();

/** The documents of a category. */
export function documents(name: Category): string[] {
  const hit = cache.get(name);
  if (hit) return hit;
  let docs: string[];
  switch (name) {
    case "prose":
      docs = capped([
        documentsOfFiles(packageMarkdown()),
        documentsOfFiles([join(ROOT, "README.md"), ...filesUnder(join(ROOT, "docs"), (n) => n.endsWith(".md"))]),
      ]);
      break;
    case "code":
      docs = capped([
        documentsOfFiles(
          ["native", "binding", "ts", "test", "scripts", "bench"].flatMap((dir) =>
            filesUnder(join(ROOT, dir), (n) => /\.(cpp|hpp|cc|ts|mjs)$/.test(n)),
          ),
        ),
        documentsOfFiles(filesUnder(join(MODULES, "typescript", "lib"), (n) => /^lib\..*\.d\.ts$/.test(n))),
      ]);
      break;
    case "cjk":
      docs = capped(["ja", "ko", "zh-cn", "zh-tw"].map((locale) => diagnosticMessages([locale])));
      break;
    case "euro":
      docs = capped(["cs", "de", "es", "fr", "it", "pl", "pt-br", "tr", "ru"].map((locale) => diagnosticMessages([locale])));
      break;
  }
  if (docs.length === 0) throw new Error(`the ${name} test corpus is empty: run npm install first`);
  cache.set(name, docs);
  return docs;
}
