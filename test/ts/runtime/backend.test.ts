// The backend loader: which build of the core an import gets, forcing one with CTXWIN_BACKEND,
// and the two builds answering alike. Child processes, because the choice is made at import.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { backend } from "ctxwin";

const probe = `
  import { TiktokenCounter, backend, estimateTokens } from "ctxwin";
  const texts = ["hello world", "Grüße aus Köln, ça va ?", "日本語のテキストと한국어", "const x = a?.b ?? 0; // 😀", ""];
  const o200k = new TiktokenCounter({ encoding: "o200k_base" });
  const cl100k = new TiktokenCounter({ encoding: "cl100k_base" });
  console.log(JSON.stringify({
    backend,
    counts: Array.from(o200k.countMany(texts)),
    tokens: texts.map((t) => Array.from(cl100k.encode(t))),
    async: Array.from(await cl100k.countManyAsync(texts)),
    estimate: estimateTokens("x".repeat(1000)),
  }));
`;

function run(env: Record<string, string>, cwd?: string): ReturnType<typeof spawnSync> {
  return spawnSync(process.execPath, ["--input-type=module", "-e", probe], { encoding: "utf8", cwd, env: { ...process.env, ...env } });
}

// A project whose installed ctxwin has no addon that loads here (as on macOS or musl): the
// package's dist/, WebAssembly build and data modules only, with its dependencies beside it.
const root = join(import.meta.dirname, "..", "..", "..");
const project = mkdtempSync(join(tmpdir(), "ctxwin-no-addon-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));
function projectWithoutAddon(): string {
  const pkg = join(project, "node_modules", "ctxwin");
  mkdirSync(join(pkg, "prebuilds"), { recursive: true });
  cpSync(join(root, "package.json"), join(pkg, "package.json"));
  cpSync(join(root, "dist"), join(pkg, "dist"), { recursive: true });
  cpSync(join(root, "prebuilds", "wasm"), join(pkg, "prebuilds", "wasm"), { recursive: true });
  // The Node glue loads the one .wasm, kept beside the web build's glue, and the data tables from
  // the data modules, as an installed package has them (no data/*.bin).
  mkdirSync(join(pkg, "prebuilds", "wasm-web"), { recursive: true });
  cpSync(join(root, "prebuilds", "wasm-web", "ctxwin.wasm"), join(pkg, "prebuilds", "wasm-web", "ctxwin.wasm"));
  cpSync(join(root, "prebuilds", "wasm-web", "data"), join(pkg, "prebuilds", "wasm-web", "data"), { recursive: true });
  // Every installed package (dependencies and theirs, hoisted) but an addon: ctxwin's own build/
  // and prebuilt addon are what this project lacks.
  for (const dep of readdirSync(join(root, "node_modules"))) {
    if (dep === ".bin" || dep === "ctxwin" || dep.startsWith(".")) continue;
    symlinkSync(join(root, "node_modules", dep), join(project, "node_modules", dep));
  }
  return project;
}

describe("the backend", () => {
  it("is the one CTXWIN_BACKEND names (npm test runs the suite once per backend)", () => {
    expect(["native", "wasm"]).toContain(backend);
    if (process.env.CTXWIN_BACKEND) expect(backend).toBe(process.env.CTXWIN_BACKEND);
  });

  it("native and wasm give the same counts, tokens and async counts", () => {
    const [native, wasm] = (["native", "wasm"] as const).map((name) => {
      const out = execFileSync(process.execPath, ["--input-type=module", "-e", probe], {
        encoding: "utf8",
        env: { ...process.env, CTXWIN_BACKEND: name },
      });
      return JSON.parse(out.trim()) as { backend: string };
    });
    expect(native?.backend).toBe("native");
    expect(wasm?.backend).toBe("wasm");
    expect({ ...wasm, backend: "-" }).toEqual({ ...native, backend: "-" });
  });

  it("an unknown CTXWIN_BACKEND fails the import with a coded error naming the variable", () => {
    const result = run({ CTXWIN_BACKEND: "gpu" });
    expect(result.status).not.toBe(0);
    expect(String(result.stderr)).toMatch(/CTXWIN_BACKEND must be "native" or "wasm" \(got "gpu"\)/);
    expect(String(result.stderr)).toMatch(/ERR_CTXWIN_INVALID_ARGUMENT/);
  });

  it("falls back to WebAssembly where no addon loads, saying why once; CTXWIN_BACKEND=native then fails", () => {
    const cwd = projectWithoutAddon();
    const fallback = run({ CTXWIN_BACKEND: "" }, cwd);
    expect(fallback.status).toBe(0);
    expect(JSON.parse(String(fallback.stdout).trim()).backend).toBe("wasm");
    const warnings = String(fallback.stderr)
      .split("\n")
      .filter((line) => line.includes("ctxwin: using the WebAssembly build"));
    expect(warnings).toEqual([
      `ctxwin: using the WebAssembly build: no native addon for ${process.platform}-${process.arch} in the package (prebuilt: linux-x64 with glibc >= 2.35).`,
    ]);
    const forced = run({ CTXWIN_BACKEND: "native" }, cwd);
    expect(forced.status).not.toBe(0);
    expect(String(forced.stderr)).toMatch(/ERR_CTXWIN_ADDON_MISSING/);
  });
});
