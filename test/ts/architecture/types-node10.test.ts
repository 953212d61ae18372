// Every subpath of package.json type-checks in a CommonJS project under `moduleResolution: node10`
// (TypeScript 5's default for `--module commonjs`), which reads no `exports`: only `types` and
// `typesVersions`. A subpath typesVersions lacks ("ctxwin/data/o200k_base" did) is "Cannot find
// module" there, while it resolves under node16, nodenext and bundler. The project links the
// checkout in as node_modules/ctxwin, as an install places it.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

const checkout = fileURLToPath(new URL("../../..", import.meta.url));
const manifest = JSON.parse(readFileSync(join(checkout, "package.json"), "utf8")) as { exports: Record<string, unknown> };

/** Every export as a program imports it ("./data/*" as one of its tables). */
const SUBPATHS = Object.keys(manifest.exports)
  .filter((key) => key !== "./package.json")
  .map((key) => (key === "." ? "ctxwin" : `ctxwin/${key.slice(2).replace("*", "o200k_base")}`));

const project = mkdtempSync(join(tmpdir(), "ctxwin-node10-"));
mkdirSync(join(project, "node_modules"));
symlinkSync(checkout, join(project, "node_modules", "ctxwin"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("types under moduleResolution node10", () => {
  it("resolve every subpath, the data modules' default export included", () => {
    const file = join(project, "consumer.ts");
    const id = (subpath: string): string => subpath.replace(/[^a-z0-9]/gi, "_");
    writeFileSync(
      file,
      `${SUBPATHS.map((s) => `import * as ${id(s)} from "${s}";`).join("\n")}
import o200k from "ctxwin/data/o200k_base";
const size: number = o200k.size;
export const all = [${SUBPATHS.map(id).join(", ")}, size];
`,
    );
    const program = ts.createProgram([file], {
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ["node"],
      typeRoots: [join(checkout, "node_modules", "@types")],
    });
    const problems = ts
      .getPreEmitDiagnostics(program, program.getSourceFile(file))
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(problems).toEqual([]);
  });
});
