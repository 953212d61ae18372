// The sizes README.md and docs/install.md state are the build's, measured (scripts/sizes.mjs:
// `npm pack --dry-run --json` over the files built now), not written by hand and left behind: a
// documented figure more than TOLERANCE away from the measured one fails here, with the figure to
// write. Figures are rounded to 0.1 MB in the text, so the tolerance is the larger of 3% and 0.05 MB.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain JavaScript script of the repository, without types
import { mb, measurePack } from "../../../scripts/sizes.mjs";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const TOLERANCE = 0.03;

interface Pack {
  packed: number;
  unpacked: number;
  files: number;
  largest: Array<{ path: string; size: number }>;
}

const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

/** The number a pattern's first group holds in `file`, in bytes when it is a figure in MB. */
function documented(file: string, pattern: RegExp): number {
  const found = pattern.exec(read(file));
  expect(found, `${file} states no figure matching ${pattern}`).not.toBeNull();
  return Number(found?.[1]);
}

function near(what: string, stated: number, measured: number, slack: number, write: string): void {
  const off = Math.abs(stated - measured);
  expect(off <= Math.max(measured * TOLERANCE, slack), `${what}: the docs say ${stated}, the build measures ${write}`).toBe(true);
}

describe("the sizes in the docs", () => {
  const pack = measurePack() as Pack;
  const sizeOf = (path: string) => pack.largest.find((file) => file.path === path)?.size ?? 0;

  it("README.md's packed size is the tarball's", () => {
    const stated = documented("README.md", /Packed size: (\d+\.\d) MB \(npm pack/);
    near("README.md packed size", stated * 1e6, pack.packed, 0.05e6, mb(pack.packed));
  });

  it("docs/install.md's packed and unpacked sizes and file count are the tarball's", () => {
    const line = /Packed size: \*\*(\d+\.\d) MB\*\* \(`npm pack`, \d{4}-\d\d-\d\d: (\d+\.\d) MB unpacked, (\d+) files/;
    const found = line.exec(read("docs/install.md"));
    expect(found, `docs/install.md states no figures matching ${line}`).not.toBeNull();
    const [, packed, unpacked, files] = (found ?? []).map(Number) as [number, number, number, number];
    near("docs/install.md packed size", packed * 1e6, pack.packed, 0.05e6, mb(pack.packed));
    near("docs/install.md unpacked size", unpacked * 1e6, pack.unpacked, 0.05e6, mb(pack.unpacked));
    near("docs/install.md file count", files, pack.files, 0, `${pack.files} files`);
  });

  it("docs/install.md's addon and .wasm sizes are the tarball's", () => {
    const addon = documented("docs/install.md", /the addon (\d+\.\d+) MB and the `\.wasm` \d+\.\d+ MB/);
    const wasm = documented("docs/install.md", /the addon \d+\.\d+ MB and the `\.wasm` (\d+\.\d+) MB/);
    const [addonBytes, wasmBytes] = [sizeOf("prebuilds/linux-x64/ctxwin.node"), sizeOf("prebuilds/wasm-web/ctxwin.wasm")];
    expect(wasmBytes).toBeGreaterThan(0);
    // A checkout on another platform packs no linux-x64 addon: only the .wasm is measured there.
    if (addonBytes > 0) near("docs/install.md addon size", addon * 1e6, addonBytes, 0.05e6, mb(addonBytes));
    near("docs/install.md .wasm size", wasm * 1e6, wasmBytes, 0.05e6, mb(wasmBytes));
  });
});
