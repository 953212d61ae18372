// Every `import { ... } from "ctxwin..."` in the docs (README.md, docs/*.md, in any code block or
// inline) names what that entry exports: a name that moved from the root to a subpath (docs/api.md,
// "Moved from the root") and a page still importing it from the root fails here. The snippets of
// README.md and docs/frameworks.md are compiled whole by test/ts/adapters/doc-snippets.test.ts;
// the other pages' snippets stand for fragments of programs, so only their imports are checked.
// And a newcomer's first program (the README's first snippet, the demo, the two example loops)
// needs the root alone.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** The import statements of ctxwin's own entries a page holds: `{ page, line, names, from }`. */
export function docImports(page: string, text: string): Array<{ where: string; names: string[]; from: string }> {
  const found: Array<{ where: string; names: string[]; from: string }> = [];
  for (const m of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*"(ctxwin(?:\/[\w.-]+)*)"/g)) {
    if (m[2]?.startsWith("ctxwin/data/")) continue;
    const line = text.slice(0, m.index).split("\n").length;
    const names = (m[1] as string)
      .split(",")
      .map((s) =>
        s
          .trim()
          .replace(/^type\s+/, "")
          .replace(/\s+as\s+[\w$]+$/, ""),
      )
      .filter(Boolean);
    found.push({ where: `${page}:${line}`, names, from: m[2] as string });
  }
  return found;
}

describe("the docs' imports", () => {
  it("reads an import", () => {
    expect(docImports("p", 'x\nimport { A, type B, C as D } from "ctxwin/tokens";\n`import { E } from "ctxwin"`')).toEqual([
      { where: "p:2", names: ["A", "B", "C"], from: "ctxwin/tokens" },
      { where: "p:3", names: ["E"], from: "ctxwin" },
    ]);
  });

  it("of a first program name the root alone", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const quickStart = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    const programs: Array<[string, string]> = [
      ["README.md, the first snippet", quickStart],
      ...["examples/demo.ts", "examples/message-history-loop.ts", "examples/agent-loop.ts"].map((file): [string, string] => [
        file,
        readFileSync(join(ROOT, file), "utf8"),
      ]),
    ];
    for (const [where, text] of programs) {
      const entries = [...text.matchAll(/from\s*"(ctxwin[^"]*)"/g)].map((m) => m[1]);
      expect({ where, entries: [...new Set(entries)] }).toEqual({ where, entries: ["ctxwin"] });
    }
  });

  it("name only what each entry exports", { timeout: 120_000 }, () => {
    const imports = PAGES.flatMap((page) => docImports(page, readFileSync(join(ROOT, page), "utf8")));
    expect(imports.length).toBeGreaterThan(20);
    // One module re-exporting every entry the docs import from, resolved as a user's program
    // resolves them (the package's own name, its exports, the built dist/).
    const entries = [...new Set(imports.map((i) => i.from))];
    const file = join(ROOT, "test", "ts", "architecture", "__doc_imports__.ts");
    const source = entries.map((entry, i) => `export * as e${i} from "${entry}";`).join("\n");
    const options: ts.CompilerOptions = {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ["node"],
    };
    const host = ts.createCompilerHost(options);
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (name, language, ...rest) =>
      name === file ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest);
    const fileExists = host.fileExists.bind(host);
    host.fileExists = (name) => name === file || fileExists(name);
    const program = ts.createProgram([file], options, host);
    expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
    const checker = program.getTypeChecker();
    const module = checker.getSymbolAtLocation(program.getSourceFile(file) as ts.SourceFile) as ts.Symbol;
    const exported = new Map(
      checker.getExportsOfModule(module).map((ns) => {
        const target = checker.getAliasedSymbol(ns);
        return [entries[Number(ns.name.slice(1))] as string, new Set(checker.getExportsOfModule(target).map((s) => s.name))];
      }),
    );
    const wrong = imports.flatMap(({ where, names, from }) =>
      names.filter((name) => !exported.get(from)?.has(name)).map((name) => `${where}: ${name} from "${from}"`),
    );
    expect(wrong).toEqual([]);
  });
});
