// `npm run bench`: every benchmark, peers side by side in one run, ratios printed.
import { arch, cpus, platform } from "node:os";
import { benchSpec08 } from "./spec08.js";
import { benchTokenizers } from "./tokenizers.js";
import { benchClaude } from "./claude.js";
import { benchOpenModels } from "./hf.js";
import { benchStrategies } from "./strategies.js";
import { benchCompaction } from "./compaction.js";
import { benchCacheShare } from "./cache-share.js";
import { benchMemory } from "./memory.js";
import { benchSessions } from "./sessions.js";
import { benchFrameworks } from "./frameworks.js";
import { benchWasm } from "./wasm.js";
import { benchPathological } from "./pathological.js";

console.log(`ctxwin benchmarks: node ${process.version}, ${platform()} ${arch()}, ${cpus()[0]?.model ?? "unknown cpu"} x${cpus().length}`);
benchSpec08();
await benchStrategies();
await benchCompaction();
await benchCacheShare();
await benchSessions();
await benchFrameworks();
await benchTokenizers();
await benchClaude();
benchWasm();
benchMemory();
benchOpenModels();
benchPathological();
