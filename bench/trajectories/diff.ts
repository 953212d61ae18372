// Two runs of the trajectory benchmark side by side (their --json files): per window and method the
// lost share, the open error line lost, the newest result missing where drop-oldest keeps it, and
// the runs whose lost share moved most.
//   node --import tsx bench/trajectories/diff.ts before.json after.json [--runs 10]
import { readFileSync } from "node:fs";
import { lostShare, type Results } from "./report.js";
import type { Tally } from "./replay.js";

function load(path: string): Results {
  return JSON.parse(readFileSync(path, "utf8")) as Results;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const signed = (x: number) => `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)}`;

function errorLost(t: Tally): number {
  const v = t.answers["open-error"];
  const n = v.present + v.recoverable + v.lost;
  return n === 0 ? 0 : v.lost / n;
}

export function diffResults(before: Results, after: Results, runs: number): string[] {
  const lines: string[] = [];
  if (before.split !== after.split || before.sample !== after.sample)
    lines.push(`note: split ${before.split} -> ${after.split}, sample ${before.sample} -> ${after.sample}: not the same requests`);
  lines.push(
    "| window | method | lost | open error line lost | newest missing (drop-oldest keeps it) | over window |",
    "|---|---|---|---|---|---|",
  );
  for (const key of Object.keys(after.totals)) {
    const a = after.totals[key] as Tally;
    const b = before.totals[key];
    const [window, method] = key.split("|");
    if (b === undefined) {
      lines.push(
        `| ${window} | ${method} | ${pct(lostShare(a))} (new) | ${pct(errorLost(a))} | ${a.newestMissingWhereDropOldestKeeps} | ${a.overWindow} |`,
      );
      continue;
    }
    lines.push(
      `| ${window} | ${method} | ${pct(lostShare(b))} -> ${pct(lostShare(a))} (${signed(lostShare(a) - lostShare(b))}) | ${pct(errorLost(b))} -> ${pct(errorLost(a))} | ${b.newestMissingWhereDropOldestKeeps} -> ${a.newestMissingWhereDropOldestKeeps} | ${b.overWindow} -> ${a.overWindow} |`,
    );
  }
  const moves: Array<{ run: string; key: string; delta: number }> = [];
  for (const [run, byKey] of Object.entries(after.perRun)) {
    for (const [key, t] of Object.entries(byKey)) {
      const b = before.perRun[run]?.[key];
      if (b !== undefined && lostShare(t) !== lostShare(b)) moves.push({ run, key, delta: lostShare(t) - lostShare(b) });
    }
  }
  moves.sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta));
  if (moves.length === 0) lines.push("", "No run's lost share moved.");
  else if (runs > 0) {
    lines.push("", `The ${Math.min(runs, moves.length)} largest moves of a run's lost share:`);
    for (const m of moves.slice(0, runs)) lines.push(`- ${m.run}, ${m.key.replace("|", " ")}: ${signed(m.delta)} points`);
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { parseArgs } = await import("node:util");
  const { values, positionals } = parseArgs({ options: { runs: { type: "string" } }, allowPositionals: true });
  if (positionals.length !== 2) throw new Error("usage: diff.ts before.json after.json [--runs 10]");
  console.log(diffResults(load(positionals[0] as string), load(positionals[1] as string), Number(values.runs ?? 10)).join("\n"));
}
