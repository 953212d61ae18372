// The trajectory benchmark's data layer: the committed manifest (its sources, its splits: dev,
// heldout, fresh) and what the bench says when the fetched files are absent or changed, on files
// written in the test. Nothing here reads the fetched trajectories: the suite passes on a checkout
// without them.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  entriesOfSplit,
  loadRuns,
  missingReport,
  readManifest,
  sha256,
  verifyFiles,
  type ManifestEntry,
} from "../../../bench/trajectories/data.js";

const RUN = { trajectory_format: "mini-swe-agent-1", messages: [{ role: "system", content: "You are a helpful assistant." }] };

describe("trajectory data", () => {
  const { entries } = readManifest();

  it("names at least 40 runs of three agents, each with its source, licence and sha256", () => {
    expect(entries.length).toBeGreaterThanOrEqual(40);
    expect(new Set(entries.map((e) => e.agent))).toEqual(new Set(["mini-swe-agent", "swe-agent", "openhands"]));
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
    for (const e of entries) {
      expect(e.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(e.source.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(e.source.licence).not.toBe("");
      expect(e.file).toBe(`${e.source.repository.replace("/", "+")}/${e.source.path}`);
      expect(e.toolCalls).toBeGreaterThanOrEqual(e.agent === "mini-swe-agent" ? 60 : 40);
    }
  });

  const bySha = (a: ManifestEntry, b: ManifestEntry) => (a.sha256 < b.sha256 ? -1 : 1);

  it("holds out every fourth run of each agent's first selection by sha256, so both agents are in both splits", () => {
    for (const agent of ["mini-swe-agent", "swe-agent"]) {
      const runs = entries.filter((e) => e.agent === agent && e.split !== "fresh").sort(bySha);
      expect(runs.map((e) => e.split)).toEqual(runs.map((_, i) => (i % 4 === 3 ? "heldout" : "dev")));
      expect(runs.some((e) => e.split === "heldout")).toBe(true);
    }
  });

  it("takes the fresh split of the first two agents as the next runs by sha256 after their first selection", () => {
    for (const agent of ["mini-swe-agent", "swe-agent"]) {
      const runs = entries.filter((e) => e.agent === agent).sort(bySha);
      const firstFresh = runs.findIndex((e) => e.split === "fresh");
      // Contiguous after the first selection: none of the 64 first chosen sorts after a fresh one.
      expect(firstFresh).toBeGreaterThan(0);
      expect(runs.slice(firstFresh).every((e) => e.split === "fresh")).toBe(true);
    }
    expect(entriesOfSplit(entries, "fresh").length).toBeGreaterThanOrEqual(20);
  });

  it("puts every run of the third agent, chosen after the held-out quarter was looked at, in the fresh split", () => {
    const openhands = entries.filter((e) => e.agent === "openhands");
    expect(openhands.length).toBeGreaterThanOrEqual(8);
    expect(openhands.every((e) => e.split === "fresh")).toBe(true);
    // A run's id names its instance (the log's folder), not the log's file.
    for (const e of openhands) expect(e.source.path.split("/").at(-2)).toBe(e.id.split("/").at(-1));
  });

  it("selects one split by name, every split by all, and refuses another name", () => {
    const counts = ["dev", "heldout", "fresh"].map((split) => entriesOfSplit(entries, split).length);
    expect(counts.every((n) => n > 0)).toBe(true);
    expect(counts.reduce((a, b) => a + b)).toBe(entries.length);
    expect(entriesOfSplit(entries, "all")).toEqual(entries);
    expect(() => entriesOfSplit(entries, "test")).toThrow(RangeError);
    expect(() => entriesOfSplit(entries, "test")).toThrow(/--split must be dev, heldout, fresh or all, got test/);
  });

  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const entry = (name: string, bytes: string): ManifestEntry => ({
    id: `mini-swe-agent/run/${name}`,
    agent: "mini-swe-agent",
    run: "run",
    source: { repository: "owner/repo", commit: "0".repeat(40), path: `trajs/${name}.traj.json`, licence: "MIT" },
    file: `owner+repo/trajs/${name}.traj.json`,
    sha256: sha256(bytes),
    bytes: bytes.length,
    toolCalls: 60,
    split: "dev",
  });

  it("reads the files whose sha256 matches and lists the missing and the changed apart", () => {
    const dir = mkdtempSync(join(tmpdir(), "ctxwin-trajectories-"));
    dirs.push(dir);
    const good = entry("good", JSON.stringify(RUN));
    const changed = entry("changed", '{"messages":[]}');
    const missing = entry("missing", "{}");
    for (const [e, bytes] of [
      [good, JSON.stringify(RUN)],
      [changed, '{"messages":[ ]}'],
    ] as const) {
      mkdirSync(dirname(join(dir, e.file)), { recursive: true });
      writeFileSync(join(dir, e.file), bytes);
    }
    const loaded = loadRuns(dir, [good, changed, missing]);
    expect(loaded.runs.map((r) => r.entry.id)).toEqual([good.id]);
    expect(loaded.runs[0]?.data).toEqual(RUN);
    expect(loaded.changed.map((e) => e.id)).toEqual([changed.id]);
    expect(loaded.missing.map((e) => e.id)).toEqual([missing.id]);
    expect(verifyFiles(dir, [good, changed, missing])).toEqual({ ok: 1, missing: [missing], changed: [changed] });

    const report = missingReport(dir, loaded.missing, loaded.changed);
    expect(report).not.toContain("does not exist");
    expect(report).toContain("1 of the manifest's files are missing and 1 differ from their sha256");
    expect(report).toContain(`missing  ${missing.file}`);
    expect(report).toContain(`changed  ${changed.file}  (sha256 should be ${changed.sha256})`);
    expect(report).toContain("git clone https://github.com/owner/repo /tmp/owner+repo");
    expect(report).toContain(`data.ts place /tmp/owner+repo --to ${dir}`);
  });

  it("says when the directory itself does not exist, and where it was looked for", () => {
    const dir = join(tmpdir(), "ctxwin-trajectories-never-created");
    const { missing, changed } = verifyFiles(dir, [entry("a", "{}")]);
    const report = missingReport(dir, missing, changed);
    expect(report).toContain(`the directory ${dir} does not exist`);
    expect(report).toContain("CTXWIN_TRAJECTORIES");
    expect(report).toContain("manifest.json");
  });
});
