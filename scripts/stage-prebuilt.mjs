// What prepack puts into the tarball beside the build (prebuilds/ and the sources archive are not
// in git): the stripped addon and the C++ sources for a source build. scripts/prepack.mjs builds
// and checks first, then calls these; scripts/sizes.mjs calls them too where a checkout has not
// packed yet, so that the sizes it measures are the tarball's.
import { copyFileSync, mkdirSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { root, addonPath, SOURCES, SOURCES_ARCHIVE } from "./build.mjs";

/** Copies the built addon to prebuilds/linux-x64/ctxwin.node and strips it; returns its path. */
export function stageAddon() {
  const dir = join(root, "prebuilds", "linux-x64");
  mkdirSync(dir, { recursive: true });
  const prebuilt = join(dir, "ctxwin.node");
  copyFileSync(addonPath, prebuilt);
  // Stripped here, not at link: build/ keeps the symbols for debuggers and sanitizer reports.
  execFileSync("strip", ["--strip-unneeded", prebuilt], { stdio: "inherit" });
  return prebuilt;
}

/** The C++ sources a source build needs, as one archive (`tar` is on every platform npm supports); returns its path. */
export function packSources() {
  const archive = join(root, SOURCES_ARCHIVE);
  execFileSync("tar", ["-czf", archive, "-C", root, ...SOURCES], { stdio: "inherit" });
  return archive;
}
