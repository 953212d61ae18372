// A small timing harness: each case runs side by side with its peers in the same process, and
// results are medians of several samples after a warm-up. Figures are printed as a table with
// ratios against a named baseline.
export interface Case {
  name: string;
  /** Runs the operation `iterations` times. */
  run: (iterations: number) => void;
  /** Called before each sample, outside the timed region. */
  setup?: () => void;
}

export interface Result {
  name: string;
  nsPerOp: number;
}

const now = () => process.hrtime.bigint();

/** Median time per operation of `c`, over `samples` samples of `iterations` operations. */
export function measure(c: Case, iterations: number, samples = 7): Result {
  c.setup?.();
  c.run(Math.max(1, Math.floor(iterations / 10))); // warm-up: JIT and caches
  const times: number[] = [];
  for (let s = 0; s < samples; s++) {
    c.setup?.();
    const start = now();
    c.run(iterations);
    times.push(Number(now() - start) / iterations);
  }
  times.sort((a, b) => a - b);
  return { name: c.name, nsPerOp: times[Math.floor(times.length / 2)] as number };
}

export function formatTime(ns: number): string {
  if (ns < 1_000) return `${ns.toFixed(1)} ns`;
  if (ns < 1_000_000) return `${(ns / 1_000).toFixed(2)} µs`;
  return `${(ns / 1_000_000).toFixed(2)} ms`;
}

/** Prints results as a markdown table, with each one's speed relative to `baseline`. */
export function printTable(title: string, results: Result[], baseline: string): void {
  const base = results.find((r) => r.name === baseline);
  console.log(`\n### ${title}\n`);
  console.log("| case | time per op | vs " + baseline + " |");
  console.log("|---|---|---|");
  for (const r of results) {
    const ratio = base ? base.nsPerOp / r.nsPerOp : NaN;
    const relative = r === base ? "baseline" : ratio >= 1 ? `${ratio.toFixed(1)}x faster` : `${(1 / ratio).toFixed(1)}x slower`;
    console.log(`| ${r.name} | ${formatTime(r.nsPerOp)} | ${relative} |`);
  }
}

/** Keeps results alive so the JIT cannot drop the work. */
export let sink = 0;
export function consume(value: number): void {
  sink = (sink + value) | 0;
}
