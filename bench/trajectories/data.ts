// The trajectories' files: which runs the benchmark uses (manifest.json), where they are read from,
// and how to put them in place from clones of their public repositories.
//
//   node --import tsx bench/trajectories/data.ts place <git-dir-or-clone>... [--to <dir>]
//     copies every manifest entry whose repository one of the clones holds (`git show commit:path`)
//     to <dir>/<file> and checks its sha256.
//   node --import tsx bench/trajectories/data.ts verify [--trajectories <dir>] [--split dev|heldout|fresh|all]
//     checks that every file the manifest names (of one split, else all) is in <dir> (else the
//     default directory, as the bench finds it) with its sha256; lists the missing and the changed,
//     and exits 1 if any.
//   node --import tsx bench/trajectories/data.ts select <agent>=<git-dir>@<commit>:<prefix>:<min calls>:<count>[+<fresh>]:<licence>...
//     (how manifest.json was made, before any run) lists the agent's trajectory files under
//     <prefix> at <commit>, keeps those with at least <min calls> tool calls, takes the first
//     <count> by sha256, splits them (every fourth by sha256 held out), takes the next <fresh> by
//     sha256 as the `fresh` split, and writes the manifest.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { convertTrajectory, detectFormat, type AgentFormat } from "./convert.js";

/**
 * `dev`: tuned on. `heldout`: a quarter of the first selection, set aside, since looked at.
 * `fresh`: chosen later by the same rule, the independent set nobody has tuned on or looked at.
 */
export type Split = "dev" | "heldout" | "fresh";

export const SPLITS: readonly Split[] = ["dev", "heldout", "fresh"];

/** The entries `--split` names: one split, or `all` for every split. */
export function entriesOfSplit(entries: readonly ManifestEntry[], split: string): ManifestEntry[] {
  if (split !== "all" && !(SPLITS as readonly string[]).includes(split))
    throw Object.assign(new RangeError(`--split must be ${SPLITS.join(", ")} or all, got ${split}`), { code: "ERR_CTXWIN_BENCH_SPLIT" });
  return entries.filter((e) => split === "all" || e.split === split);
}

export interface ManifestEntry {
  /** `<agent>/<model run>/<instance>`: unique, stable. */
  id: string;
  agent: AgentFormat;
  /** The run (model and date) as its repository names it. */
  run: string;
  source: { repository: string; commit: string; path: string; licence: string };
  /** Where the file goes under the trajectories directory. */
  file: string;
  sha256: string;
  bytes: number;
  toolCalls: number;
  split: Split;
}

export interface Manifest {
  description: string;
  entries: ManifestEntry[];
}

export const MANIFEST_PATH = join(import.meta.dirname, "manifest.json");

export function readManifest(path = MANIFEST_PATH): Manifest {
  return JSON.parse(readFileSync(path, "utf8")) as Manifest;
}

export function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * The directory the trajectories are read from: `--trajectories <dir>`, else CTXWIN_TRAJECTORIES,
 * else /work/data/trajectories, else ../shared/trajectories (beside the checkout).
 */
export function trajectoriesDir(explicit: string | undefined, root: string): string {
  if (explicit !== undefined) return resolve(explicit);
  const fromEnv = process.env.CTXWIN_TRAJECTORIES;
  if (fromEnv !== undefined && fromEnv !== "") return resolve(fromEnv);
  const candidates = ["/work/data/trajectories", resolve(root, "..", "shared", "trajectories")];
  return candidates.find((dir) => existsSync(dir)) ?? (candidates[0] as string);
}

export interface LoadedRun {
  entry: ManifestEntry;
  data: unknown;
}

/** The files of `entries` read from `dir` and checked against their sha256; the missing and the changed listed apart. */
export function loadRuns(
  dir: string,
  entries: readonly ManifestEntry[],
): { runs: LoadedRun[]; missing: ManifestEntry[]; changed: ManifestEntry[] } {
  const runs: LoadedRun[] = [];
  const missing: ManifestEntry[] = [];
  const changed: ManifestEntry[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.file);
    if (!existsSync(path)) {
      missing.push(entry);
      continue;
    }
    const bytes = readFileSync(path);
    if (sha256(bytes) !== entry.sha256) {
      changed.push(entry);
      continue;
    }
    runs.push({ entry, data: JSON.parse(bytes.toString("utf8")) });
  }
  return { runs, missing, changed };
}

/**
 * What the bench says when `dir` lacks files of the manifest or holds changed ones: which, where
 * each comes from, and the commands that put them in place. No figure is computed from a partial set.
 */
export function missingReport(dir: string, missing: readonly ManifestEntry[], changed: readonly ManifestEntry[]): string {
  const lines: string[] = [];
  if (!existsSync(dir)) {
    lines.push(
      `trajectories: the directory ${dir} does not exist.`,
      "  It is --trajectories <dir>, else CTXWIN_TRAJECTORIES, else /work/data/trajectories, else ../shared/trajectories beside the checkout.",
    );
  }
  lines.push(
    `trajectories: ${missing.length} of the manifest's files are missing and ${changed.length} differ from their sha256 in ${dir}.`,
  );
  for (const e of missing.slice(0, 5)) lines.push(`  missing  ${e.file}  (${e.source.repository}@${e.source.commit.slice(0, 12)})`);
  if (missing.length > 5) lines.push(`  ... and ${missing.length - 5} more missing`);
  for (const e of changed) lines.push(`  changed  ${e.file}  (sha256 should be ${e.sha256})`);
  const repos = [...new Set([...missing, ...changed].map((e) => e.source.repository))];
  const clones = repos.map((r) => `/tmp/${r.replace("/", "+")}`);
  lines.push(
    `Each file's repository, commit, path, licence and sha256 are in ${MANIFEST_PATH}. Get them (bench/trajectories/README.md):`,
    ...repos.map((r, i) => `  git clone https://github.com/${r} ${clones[i] as string}`),
    `  node --import tsx bench/trajectories/data.ts place ${clones.join(" ")} --to ${dir}`,
    `  node --import tsx bench/trajectories/data.ts verify --trajectories ${dir}`,
    "or point --trajectories <dir> / CTXWIN_TRAJECTORIES at a directory that holds them.",
  );
  return lines.join("\n");
}

/** Every file of the manifest checked in `dir` by its sha256, without parsing it. */
export function verifyFiles(
  dir: string,
  entries: readonly ManifestEntry[],
): { ok: number; missing: ManifestEntry[]; changed: ManifestEntry[] } {
  const missing: ManifestEntry[] = [];
  const changed: ManifestEntry[] = [];
  let ok = 0;
  for (const entry of entries) {
    const path = join(dir, entry.file);
    if (!existsSync(path)) missing.push(entry);
    else if (sha256(readFileSync(path)) !== entry.sha256) changed.push(entry);
    else ok++;
  }
  return { ok, missing, changed };
}

function verifyCommand(args: string[]): void {
  const dirIndex = args.indexOf("--trajectories");
  const splitIndex = args.indexOf("--split");
  const split = splitIndex >= 0 ? (args[splitIndex + 1] ?? "") : "all";
  const dir = trajectoriesDir(dirIndex >= 0 ? args[dirIndex + 1] : undefined, resolve(import.meta.dirname, "..", ".."));
  const entries = entriesOfSplit(readManifest().entries, split);
  const { ok, missing, changed } = verifyFiles(dir, entries);
  console.log(
    `${dir}: ${ok} of the manifest's ${entries.length} files${split === "all" ? "" : ` (${split} split)`} present with their sha256`,
  );
  if (missing.length > 0 || changed.length > 0) {
    console.error(missingReport(dir, missing, changed));
    process.exitCode = 1;
  }
}

function gitShow(gitDir: string, commit: string, path: string): Buffer {
  return execFileSync("git", ["--git-dir", gitDir, "show", `${commit}:${path}`], { maxBuffer: 1 << 30 });
}

function gitDirOf(dir: string): string {
  return existsSync(join(dir, ".git")) ? join(dir, ".git") : dir;
}

/** The file a manifest entry names, from a clone (or bare git directory) of its repository. */
function place(entry: ManifestEntry, gitDir: string, to: string): "placed" | "present" {
  const target = join(to, entry.file);
  if (existsSync(target) && sha256(readFileSync(target)) === entry.sha256) return "present";
  const bytes = gitShow(gitDir, entry.source.commit, entry.source.path);
  if (sha256(bytes) !== entry.sha256)
    throw new Error(`${entry.source.repository}@${entry.source.commit}:${entry.source.path}: sha256 differs from the manifest's`);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, bytes);
  return "placed";
}

function repositoryOf(gitDir: string): string | undefined {
  try {
    const url = execFileSync("git", ["--git-dir", gitDir, "config", "--get", "remote.origin.url"], { encoding: "utf8" }).trim();
    const match = /github\.com[/:]([^/]+\/[^/.]+?)(?:\.git)?$/.exec(url);
    return match?.[1];
  } catch {
    return undefined;
  }
}

function hasCommit(gitDir: string, commit: string): boolean {
  try {
    execFileSync("git", ["--git-dir", gitDir, "cat-file", "-e", `${commit}^{commit}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function placeCommand(args: string[]): void {
  const toIndex = args.indexOf("--to");
  const to = toIndex >= 0 ? resolve(args[toIndex + 1] as string) : trajectoriesDir(undefined, resolve(import.meta.dirname, "..", ".."));
  const clones = args.filter((_, i) => i !== toIndex && i !== toIndex + 1).map((dir) => gitDirOf(resolve(dir)));
  const manifest = readManifest();
  let placed = 0;
  let present = 0;
  const left: string[] = [];
  for (const entry of manifest.entries) {
    // A clone holds the entry when it has the commit (its remote's name may differ, e.g. a mirror).
    const gitDir =
      clones.find((dir) => repositoryOf(dir) === entry.source.repository && hasCommit(dir, entry.source.commit)) ??
      clones.find((dir) => hasCommit(dir, entry.source.commit));
    if (gitDir === undefined) {
      left.push(entry.id);
      continue;
    }
    if (place(entry, gitDir, to) === "placed") placed++;
    else present++;
  }
  console.log(
    `${to}: ${placed} placed, ${present} already there, ${left.length} not in the clones given${left.length ? ` (${[...new Set(manifest.entries.filter((e) => left.includes(e.id)).map((e) => e.source.repository))].join(", ")})` : ""}`,
  );
  if (left.length > 0) process.exitCode = 1;
}

interface SelectSpec {
  agent: AgentFormat;
  gitDir: string;
  repository: string;
  commit: string;
  prefix: string;
  minCalls: number;
  count: number;
  /** How many runs after the first `count` by sha256 make the `fresh` split. */
  fresh: number;
  licence: string;
}

function parseSpec(spec: string): SelectSpec {
  const match = /^([^=]+)=([^@]+)@([0-9a-f]{40}):([^:]*):(\d+):(\d+)(?:\+(\d+))?:(.+)$/.exec(spec);
  if (!match) throw new Error(`bad spec ${spec}: <agent>=<git-dir>@<commit>:<prefix>:<min calls>:<count>[+<fresh>]:<licence>`);
  const gitDir = gitDirOf(resolve(match[2] as string));
  const repository =
    repositoryOf(gitDir) ??
    (/([^/+]+)\+([^/]+)\/repo\/?$/
      .exec(match[2] as string)
      ?.slice(1, 3)
      .join("/") as string);
  return {
    agent: match[1] as AgentFormat,
    gitDir,
    repository,
    commit: match[3] as string,
    prefix: match[4] as string,
    minCalls: Number(match[5]),
    count: Number(match[6]),
    fresh: Number(match[7] ?? 0),
    licence: match[8] as string,
  };
}

function selectCommand(specs: string[]): void {
  const entries: ManifestEntry[] = [];
  for (const spec of specs.map(parseSpec)) {
    const paths = execFileSync("git", ["--git-dir", spec.gitDir, "ls-tree", "-r", "--name-only", spec.commit, "--", spec.prefix], {
      encoding: "utf8",
      maxBuffer: 1 << 28,
    })
      .split("\n")
      // mini-swe-agent's `.traj.json`, SWE-agent's `.traj`; OpenHands' completion logs are `.json`.
      .filter((p) => (spec.agent === "openhands" ? /\.json$/ : /\.traj(\.json)?$/).test(p));
    const candidates: ManifestEntry[] = [];
    for (const path of paths) {
      const bytes = gitShow(spec.gitDir, spec.commit, path);
      const data = JSON.parse(bytes.toString("utf8")) as unknown;
      if (detectFormat(data) !== spec.agent) continue;
      const { toolCalls } = convertTrajectory(data);
      if (toolCalls < spec.minCalls) continue;
      const parts = path.split("/");
      // The instance names the file, or for OpenHands (`trajs/<instance>/<model>-<time>.json`) its folder.
      const instance = spec.agent === "openhands" ? (parts.at(-2) as string) : (parts.at(-1) as string).replace(/\.traj(\.json)?$/, "");
      const run = parts.find((p) => /^20\d{6}_/.test(p)) ?? "run";
      candidates.push({
        id: `${spec.agent}/${run}/${instance}`,
        agent: spec.agent,
        run,
        source: { repository: spec.repository, commit: spec.commit, path, licence: spec.licence },
        file: `${spec.repository.replace("/", "+")}/${path}`,
        sha256: sha256(bytes),
        bytes: bytes.length,
        toolCalls,
        split: "dev",
      });
    }
    candidates.sort((a, b) => (a.sha256 < b.sha256 ? -1 : 1));
    const chosen = candidates.slice(0, spec.count);
    // Every fourth by sha256 is held out: a quarter of each agent, both agents in both splits.
    chosen.forEach((entry, i) => (entry.split = i % 4 === 3 ? "heldout" : "dev"));
    // The next ones by sha256, by the same rule: the first selection is unchanged by this, and
    // the fresh runs were not among the files anyone tuned on or looked at.
    const fresh = candidates.slice(spec.count, spec.count + spec.fresh);
    for (const entry of fresh) entry.split = "fresh";
    console.log(
      `${spec.agent}: ${paths.length} files, ${candidates.length} with >= ${spec.minCalls} tool calls, ${chosen.length} chosen, ${fresh.length} fresh`,
    );
    entries.push(...chosen, ...fresh);
  }
  const manifest: Manifest = {
    description:
      "Real agent runs replayed by `npm run bench -- trajectories` (bench/trajectories/README.md). Per run: its source (repository, commit, path, licence), the sha256 of the file, its tool calls and its split (dev: tuned on; heldout: set aside, since looked at; fresh: chosen later by the same rule, looked at only at the end). The files are not in this repository: bench/trajectories/data.ts place copies them from clones.",
    entries,
  };
  writeFileSync(MANIFEST_PATH, `${JSON.stringify(manifest, null, 2)}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [command, ...args] = process.argv.slice(2);
  if (command === "place") placeCommand(args);
  else if (command === "verify") verifyCommand(args);
  else if (command === "select") selectCommand(args);
  else
    throw new Error(
      "usage: data.ts place <clone>... [--to <dir>] | data.ts verify [--trajectories <dir>] [--split <split>] | data.ts select <spec>...",
    );
}
