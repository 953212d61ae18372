// The addon that `npm pack` puts into the tarball (prebuilds/linux-x64/ctxwin.node, a copy of the
// Release build/ctxwin.node) must load on any linux-x64 with glibc >= 2.35: it may reference no
// newer GLIBC_ symbol version, no libstdc++/libgcc_s (linked statically), and it exports only the
// Node-API module entry points.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs build script without types
import { glibcVersionsOf, MAX_GLIBC } from "../../../scripts/glibc.mjs";

const root = join(import.meta.dirname, "..", "..", "..");
// Named relative to the checkout, so that test names are the same on every machine.
const addons = ["build/ctxwin.node", "prebuilds/linux-x64/ctxwin.node"].filter((p) => existsSync(join(root, p)));

describe("the prebuilt linux-x64 addon", () => {
  it("is built here (the Release build the tarball's prebuilt is copied from)", () => {
    expect(addons.length).toBeGreaterThan(0);
  });

  it.each(addons)("%s needs no glibc newer than 2.35", (addon) => {
    const versions = glibcVersionsOf(join(root, addon)) as string[];
    expect(versions.length).toBeGreaterThan(0);
    const tooNew = versions.filter((v) => {
      const [major, minor] = v.split(".").map(Number) as [number, number];
      const [maxMajor, maxMinor] = (MAX_GLIBC as string).split(".").map(Number) as [number, number];
      return major > maxMajor || (major === maxMajor && (minor ?? 0) > maxMinor);
    });
    expect(tooNew).toEqual([]);
  });

  it.each(addons)("%s links the C++ runtime statically and exports only the Node-API entry points", (addon) => {
    const path = join(root, addon);
    const needed = [
      ...execFileSync("readelf", ["-d", path], { encoding: "utf8" }).matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g),
    ].map((m) => m[1]);
    expect(needed.filter((lib) => /libstdc\+\+|libgcc_s|libutf8proc/.test(lib ?? ""))).toEqual([]);
    const defined = execFileSync("objdump", ["-T", path], { encoding: "utf8" })
      .split("\n")
      .filter((line) => /\s(DF|DO)\s/.test(line) && !line.includes("*UND*"))
      .map((line) => line.trim().split(/\s+/).at(-1));
    expect(defined.sort()).toEqual(["napi_register_module_v1", "node_api_module_get_api_version_v1"]);
  });
});
