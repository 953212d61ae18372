// One peer in one process: `node --import tsx bench/held-out/worker.ts <peer> <encoding> <passes>
// <file>...` counts each file (UTF-8 text) in 64 KiB chunks, `passes` times with the peer made
// cold before each, and prints one JSON line per file (bytes, tokens, CPU and wall seconds of each
// pass), as bench/native's drivers do. CPU time is the process's (process.cpuUsage): a loaded
// machine's waiting does not count, and work a peer does on other threads does.
import { readFileSync } from "node:fs";
import { chunks, CHUNK } from "../text/chunks.js";
import { PEERS, type EncodingName } from "./peers.js";

// A pass past this much CPU is not repeated: the slowest peers' figures come from fewer passes.
const PASS_BUDGET_SECONDS = 2;

const [peerId, encoding, passesArg, ...files] = process.argv.slice(2);
const spec = PEERS.find((p) => p.id === peerId);
if (spec === undefined || encoding === undefined || files.length === 0) {
  throw new Error("usage: worker.ts <peer> <cl100k_base|o200k_base> <passes> <file>...");
}
const peer = await spec.load(encoding as EncodingName);
const passes = Number(passesArg);

for (const file of files) {
  const text = readFileSync(file, "utf8");
  const parts = chunks(text, CHUNK);
  await peer.countAll(parts.slice(0, 1)); // the code compiled and the tables loaded, not timed
  const cpu: number[] = [];
  const wall: number[] = [];
  let tokens = 0;
  for (let pass = 0; pass < passes; pass++) {
    await peer.cold();
    const wallStart = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    tokens = await peer.countAll(parts);
    const used = process.cpuUsage(cpuStart);
    wall.push(Number(process.hrtime.bigint() - wallStart) / 1e9);
    cpu.push((used.user + used.system) / 1e6);
    if (cpu.reduce((a, b) => a + b, 0) > PASS_BUDGET_SECONDS) break;
  }
  console.log(JSON.stringify({ file, bytes: Buffer.byteLength(text), tokens, cpu, wall }));
}
