// The package's sizes as the build makes them, for the figures README.md and docs/install.md state
// (test/ts/architecture/doc-sizes.test.ts holds those to these within its tolerance):
//
//   node scripts/sizes.mjs      packed, unpacked, file count, and the largest files
//
// `npm pack --dry-run --json --ignore-scripts` lists what the tarball would hold from the files
// built now (npm pack's prepack builds them first: run it, or scripts/build.mjs and
// scripts/build-wasm.mjs, before trusting the figures). What prepack adds beside the build (the
// stripped addon, the sources archive) is staged from the build first where a checkout lacks it
// or has an older copy, so that a fresh clone's figures are the tarball's too. MB here is 10^6
// bytes, as npm prints it.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { addonPath, mtime, newestSource, root, SOURCES, SOURCES_ARCHIVE } from "./build.mjs";
import { packSources, stageAddon } from "./stage-prebuilt.mjs";

/** Stages what prepack would add from the build, where it is missing or older than the build. */
function stageLikePrepack() {
  const prebuilt = join(root, "prebuilds", "linux-x64", "ctxwin.node");
  if (process.platform === "linux" && process.arch === "x64" && mtime(addonPath) > mtime(prebuilt)) stageAddon();
  if (newestSource(SOURCES).mtimeMs > mtime(join(root, SOURCES_ARCHIVE))) packSources();
}

/** What `npm pack` would write: packed and unpacked bytes, the file count, the files by size. */
export function measurePack() {
  stageLikePrepack();
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
    maxBuffer: 64 * 1024 * 1024,
  });
  const [pack] = JSON.parse(out);
  return {
    packed: pack.size,
    unpacked: pack.unpackedSize,
    files: pack.entryCount,
    largest: [...pack.files].sort((a, b) => b.size - a.size).map(({ path, size }) => ({ path, size })),
  };
}

export const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { packed, unpacked, files, largest } = measurePack();
  console.log(`packed ${mb(packed)} (${packed} bytes), unpacked ${mb(unpacked)} (${unpacked} bytes), ${files} files`);
  for (const { path, size } of largest.slice(0, 8)) console.log(`  ${mb(size).padStart(7)}  ${path}`);
}
