// Counts each file's first megabyte through Node the way bench/tokenizers.ts counts unseen text (64 Ki-character chunks,
// ctxwin's piece caches cleared before every pass) beside tiktoken's WASM build, timed by the process's CPU time (the
// machine is shared), best of 5 passes (tiktoken: 2). Its argument is a built entry point, so that two builds (a clone
// of main and this tree, say) can be run one after the other on the same files:
//
//   node bench/native/first_megabyte.mjs ./dist/index.js cl100k_base /tmp/words.txt /tmp/prose.txt ...
//
// CTXWIN_BACKEND=wasm measures the WebAssembly backend; NO_TIKTOKEN=1 leaves tiktoken out.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [entry, encoding, ...files] = process.argv.slice(2);
if (!entry || !encoding || files.length === 0) {
  console.error("usage: node bench/native/first_megabyte.mjs <dist/index.js> <encoding> <text file>...");
  process.exit(2);
}
const { TiktokenCounter } = await import(pathToFileURL(resolve(entry)).href);
const { get_encoding } = createRequire(import.meta.url)("tiktoken");
const ours = new TiktokenCounter({ encoding });
const tiktoken = get_encoding(encoding);
const cpuSeconds = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1e6;
};

const rows = [];
for (const file of files) {
  const all = readFileSync(file, "utf8");
  let chars = 0;
  for (let bytes = 0; chars < all.length && bytes < 1_000_000; chars++) bytes += Buffer.byteLength(all[chars]);
  const text = all.slice(0, chars);
  const chunks = [];
  for (let at = 0; at < text.length; at += 65536) chunks.push(text.slice(at, at + 65536));
  const megabytes = Buffer.byteLength(text) / 1e6;
  const megabytesPerSecond = (count, beforePass, passes) => {
    let best = Number.POSITIVE_INFINITY;
    for (let pass = 0; pass < passes; pass++) {
      beforePass?.();
      const start = cpuSeconds();
      let tokens = 0;
      for (const chunk of chunks) tokens += count(chunk);
      best = Math.min(best, cpuSeconds() - start);
      if (tokens < 0) throw new Error("unreachable: keeps the count alive");
    }
    return megabytes / best;
  };
  const ctxwin = megabytesPerSecond(
    (t) => ours.count(t),
    () => TiktokenCounter.clearPieceCaches(),
    5,
  );
  const peer = process.env.NO_TIKTOKEN ? Number.NaN : megabytesPerSecond((t) => tiktoken.encode_ordinary(t).length, undefined, 2);
  const name = file.split("/").pop();
  rows.push(`${name} ${ctxwin.toFixed(1)}${Number.isNaN(peer) ? "" : ` (tiktoken ${peer.toFixed(1)}, ${(ctxwin / peer).toFixed(1)}x)`}`);
}
console.log(`${entry} ${encoding}: ${rows.join(" | ")}`);
tiktoken.free();
