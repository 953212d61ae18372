// Every package the repository's own code imports is declared in package.json. npm hoists a
// dependency's dependencies to the top of node_modules, so an undeclared import works there and
// fails under pnpm's strict layout (`pnpm install && pnpm test` in a clone); this finds it without
// running pnpm.
import { readFileSync, readdirSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const FOLDERS = ["ts", "bench", "scripts", "examples", "test/ts", "test/packaging"];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sources(path);
    return /\.(ts|tsx|mts|js|mjs|cjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The package a bare specifier names ("@scope/name/sub" -> "@scope/name"), or undefined for a path, a builtin or a URL. */
function packageOf(specifier: string): string | undefined {
  if (/^(\.|\/|node:|data:|https?:)/.test(specifier)) return undefined;
  const parts = specifier.split("/");
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] as string);
  return builtinModules.includes(name) ? undefined : name;
}

describe("dependencies", () => {
  it("declares in package.json every package the repository imports", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Record<string, Record<string, string> | string>;
    const declared = new Set([pkg.name as string]);
    for (const field of ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"])
      for (const name of Object.keys((pkg[field] as Record<string, string> | undefined) ?? {})) declared.add(name);
    const undeclared: string[] = [];
    for (const folder of FOLDERS) {
      for (const file of sources(join(ROOT, folder))) {
        const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
        for (const { fileName } of importedFiles) {
          const name = packageOf(fileName);
          if (name !== undefined && !declared.has(name)) undeclared.push(`${file.slice(ROOT.length + 1)}: ${fileName}`);
        }
      }
    }
    expect(undeclared).toEqual([]);
  });
});
