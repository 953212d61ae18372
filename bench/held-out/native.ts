// The native anchors of bench/held-out.ts: quicktok (github.com/dmatth1/quicktok, MIT), built from
// a clone at a pinned commit, and ctxwin's own core, both through the same small C++ driver
// (bench/native/count_driver.hpp), built by CMake behind -DCTXWIN_BUILD_BENCH=ON in build-bench/.
// Nothing is fetched here: without the clone the bench says how to place it and runs the rest.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

export const QUICKTOK_REPOSITORY = "https://github.com/dmatth1/quicktok";
export const QUICKTOK_COMMIT = "a4ce3870278313f87f92bc82ef03ad61219e0e60";
const ROOT = join(import.meta.dirname, "..", "..");
export const QUICKTOK_DIR = process.env.CTXWIN_QUICKTOK ?? join(ROOT, "..", "data", "quicktok");
const BUILD = join(ROOT, "build-bench");

export interface NativeDriver {
  id: string;
  label: string;
  command: string;
  args: (encoding: string) => string[];
}

export function placeQuicktokHelp(): string {
  return [
    `quicktok not found at ${QUICKTOK_DIR} (CTXWIN_QUICKTOK names another place): its column is left out. To place it:`,
    `  git clone ${QUICKTOK_REPOSITORY} ${QUICKTOK_DIR}`,
    `  git -C ${QUICKTOK_DIR} checkout ${QUICKTOK_COMMIT}`,
  ].join("\n");
}

function quicktokCommit(): string | undefined {
  try {
    return execFileSync("git", ["-C", QUICKTOK_DIR, "rev-parse", "HEAD"], { stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim();
  } catch {
    return undefined;
  }
}

/** Configures and builds the drivers; what could be built, and notes on what could not. */
export function buildNativeDrivers(): { drivers: NativeDriver[]; notes: string[] } {
  const notes: string[] = [];
  const haveQuicktok = existsSync(join(QUICKTOK_DIR, "include", "quicktok.hpp"));
  if (!haveQuicktok) notes.push(placeQuicktokHelp());
  const commit = haveQuicktok ? quicktokCommit() : undefined;
  if (haveQuicktok && commit !== QUICKTOK_COMMIT)
    notes.push(
      `quicktok at ${QUICKTOK_DIR} is at ${commit ?? "an unknown commit"}, not the pinned ${QUICKTOK_COMMIT}: its figures are not the published ones'`,
    );
  const configure = [
    "-S",
    ROOT,
    "-B",
    BUILD,
    "-DCTXWIN_BUILD_BENCH=ON",
    "-DCTXWIN_BUILD_ADDON=OFF",
    "-DCTXWIN_BUILD_TESTS=OFF",
    `-DCTXWIN_QUICKTOK_DIR=${haveQuicktok ? QUICKTOK_DIR : ""}`,
  ];
  const targets = ["ctxwin_count", ...(haveQuicktok ? ["quicktok_count"] : [])];
  for (const args of [configure, ["--build", BUILD, "-j2", "--target", ...targets]]) {
    const run = spawnSync("cmake", args, { stdio: ["ignore", "ignore", "pipe"] });
    if (run.status !== 0) {
      notes.push(
        `the native drivers were not built (cmake ${args.join(" ")}: ${run.error?.message ?? run.stderr.toString().trim().split("\n").slice(-3).join(" ")}): their columns are left out`,
      );
      return { drivers: [], notes };
    }
  }
  const drivers: NativeDriver[] = [
    {
      id: "ctxwin-core",
      label: "ctxwin's core (C++ driver, no Node)",
      command: join(BUILD, "ctxwin_count"),
      args: (encoding) => [encoding, join(ROOT, "data", "openai")],
    },
  ];
  if (haveQuicktok) {
    drivers.push({
      id: "quicktok",
      label: `quicktok ${commit?.slice(0, 7) ?? ""} (C++ driver, built from source)`,
      command: join(BUILD, "quicktok_count"),
      args: (encoding) => [encoding, join(QUICKTOK_DIR, "data")],
    });
  }
  return { drivers, notes };
}
