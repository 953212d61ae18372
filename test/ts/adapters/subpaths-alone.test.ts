// Every Node subpath imported alone, as a new user's first program does (docs/frameworks.md's first
// Mastra snippet imports only "ctxwin/mastra"; docs/tokens.md's only "ctxwin/tokens"), in a fresh
// process, with `import` and `require`: each entry loads the core itself, as the root entry does,
// and the first call that needs it works. In the test's own process the root entry is always
// loaded already, so test/packaging/subpaths-alone.mjs (the same check .ci/install-smoke.sh runs
// on the installed tarball) runs node anew for each, here on the checkout.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const checkout = fileURLToPath(new URL("../../..", import.meta.url));
const script = fileURLToPath(new URL("../../packaging/subpaths-alone.mjs", import.meta.url));
const manifest = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
  exports: Record<string, unknown>;
};

const SUBPATHS = Object.keys(manifest.exports)
  .filter((key) => key !== "./package.json")
  .map((key) => (key === "." ? "ctxwin" : `ctxwin/${key.slice(2).replace("*", "o200k_base")}`));

type Results = Record<string, { expected: unknown; import?: unknown; require?: unknown }>;
let results: Results = {};

beforeAll(() => {
  const run = spawnSync(process.execPath, [script, checkout, "--json"], {
    cwd: checkout,
    encoding: "utf8",
    env: process.env,
    timeout: 300_000,
  });
  expect(run.stderr).toBe("");
  results = JSON.parse(run.stdout.trim().split("\n").at(-1) as string) as Results;
}, 300_000);

describe("each Node subpath imported alone in a fresh process", () => {
  it("covers every export of package.json", () => {
    expect(Object.keys(results).sort()).toEqual([...SUBPATHS].sort());
  });

  it.each(SUBPATHS)("%s works with import alone and with require alone", (subpath) => {
    const result = results[subpath];
    expect(result, subpath).toBeDefined();
    expect({ import: result?.import, require: result?.require }).toEqual({ import: result?.expected, require: result?.expected });
  });
});
