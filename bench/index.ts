// `npm run bench`: every benchmark, peers side by side in one run, ratios printed.
import { arch, cpus, platform } from "node:os";
import { parseArgs } from "node:util";
import { benchSpec08 } from "./spec08.js";
import { benchTokenizers } from "./tokenizers.js";
import { benchHeldOut } from "./held-out.js";
import { benchCountManyAsync } from "./count-many-async.js";
import { benchClaude } from "./claude.js";
import { benchOpenModels } from "./hf.js";
import { benchStrategies } from "./strategies.js";
import { benchCompaction } from "./compaction.js";
import { benchCacheShare } from "./cache-share.js";
import { benchCost } from "./cost.js";
import { benchMemory } from "./memory.js";
import { benchSessions } from "./sessions.js";
import { benchFrameworks } from "./frameworks.js";
import { benchWasm } from "./wasm.js";
import { benchCatalog } from "./catalog.js";
import { benchCatalogImport } from "./catalog-import.js";
import { benchPathological } from "./pathological.js";
import { benchColdStart } from "./cold-start.js";
import { benchShortCalls } from "./short-calls.js";
import { benchTrajectories, TRAJECTORY_OPTIONS } from "./trajectories.js";

// `npm run bench -- cost cold-start` runs only the benchmarks named (the names below); none: all.
// Options after the names are the trajectories part's (`--split heldout`, `--json out.json`, ...).
const { values: options, positionals: only } = parseArgs({ options: TRAJECTORY_OPTIONS, allowPositionals: true });
const BENCHES: Array<[string, () => unknown]> = [
  ["spec08", benchSpec08],
  ["catalog", benchCatalog],
  ["catalog-import", benchCatalogImport],
  ["strategies", benchStrategies],
  ["compaction", benchCompaction],
  ["cache-share", benchCacheShare],
  ["cost", benchCost],
  ["sessions", benchSessions],
  ["frameworks", benchFrameworks],
  ["tokenizers", benchTokenizers],
  ["held-out", benchHeldOut],
  ["count-many-async", benchCountManyAsync],
  ["claude", benchClaude],
  ["wasm", benchWasm],
  ["memory", benchMemory],
  ["hf", benchOpenModels],
  ["pathological", benchPathological],
  ["cold-start", benchColdStart],
  ["short-calls", benchShortCalls],
  ["trajectories", () => benchTrajectories(options)],
];
const unknown = only.filter((name) => !BENCHES.some(([known]) => known === name));
if (unknown.length > 0) throw new Error(`unknown benchmark ${unknown.join(", ")}: one of ${BENCHES.map(([name]) => name).join(", ")}`);

console.log(`ctxwin benchmarks: node ${process.version}, ${platform()} ${arch()}, ${cpus()[0]?.model ?? "unknown cpu"} x${cpus().length}`);
for (const [name, bench] of BENCHES) if (only.length === 0 || only.includes(name)) await bench();
