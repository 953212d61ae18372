// One list of error codes. native/include/ctxwin/error_codes.inc is the list the C++ side is built
// from (its ErrorCode enumeration and the strings the binding sets); the TypeScript side's
// ERROR_CODES, the table in docs/errors.md and every code named anywhere in the sources,
// tests and docs must agree with it.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../../ts/runtime/errors.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** The codes of error_codes.inc, in order, with the side that raises each. */
function listedCodes(): Array<{ code: string; side: "native" | "api" }> {
  return [...read("native/include/ctxwin/error_codes.inc").matchAll(/^CTXWIN_(API_)?ERROR_CODE\(\w+, "(ERR_CTXWIN_[A-Z_]+)"\)$/gm)].map(
    (m) => ({
      code: m[2] as string,
      side: m[1] === undefined ? "native" : "api",
    }),
  );
}

function files(dir: string, pattern: RegExp): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path, pattern);
    return pattern.test(entry.name) ? [path] : [];
  });
}

describe("error codes", () => {
  const listed = listedCodes();
  const codes = listed.map((l) => l.code);

  it("are listed once each, the C++ side's first", () => {
    expect(codes.length).toBeGreaterThan(0);
    expect(new Set(codes).size).toBe(codes.length);
    const firstApi = listed.findIndex((l) => l.side === "api");
    expect(listed.slice(firstApi).every((l) => l.side === "api")).toBe(true);
  });

  it("are the TypeScript side's CtxwinErrorCode list, in the same order", () => {
    expect([...ERROR_CODES]).toEqual(codes);
  });

  it("are the table in docs/errors.md, each with when it happens and what to do", () => {
    const rows = [...read("docs/errors.md").matchAll(/^\| `(ERR_CTXWIN_[A-Z_]+)` \|(.*)\|$/gm)];
    expect(rows.map((m) => m[1])).toEqual(codes);
    for (const row of rows) {
      const cells = (row[2] as string).split(" | ").map((cell) => cell.trim());
      expect(cells, row[1]).toHaveLength(3); // class, when, what to do
      expect(
        cells.every((cell) => cell.length > 0),
        row[1],
      ).toBe(true);
    }
  });

  it("are linked from the README and docs/api.md", () => {
    expect(read("README.md")).toMatch(/\]\(docs\/errors\.md\)/);
    expect(read("docs/api.md")).toMatch(/\]\(errors\.md\)/);
  });

  it("include every code the sources, tests and docs name", () => {
    const named = new Map<string, string>();
    const sources = [
      ...files("ts", /\.ts$/),
      ...files("native", /\.(hpp|cpp|inc)$/),
      ...files("binding", /\.(hpp|cpp)$/),
      ...files("test", /\.(ts|mjs|cc)$/),
      ...files("docs", /\.md$/),
      "README.md",
    ];
    for (const path of sources) {
      for (const m of read(path).matchAll(/ERR_CTXWIN_[A-Z][A-Z_]*[A-Z]/g)) if (!named.has(m[0])) named.set(m[0], path);
    }
    expect([...named].filter(([code]) => !codes.includes(code)).map(([code, path]) => `${code} (${path})`)).toEqual([]);
  });
});
