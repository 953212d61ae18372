// countMany against countManyAsync, the same batch, side by side in one run: the wall-clock ratio,
// and beside it what each thread of the process did (CPU time and time spent waiting for a CPU, from
// Linux's /proc/self/task/*/schedstat), so that a ratio near 1 on a loaded machine can be told
// apart from work that does not split: the jobs' CPU times say whether the parts are balanced,
// their sum whether splitting repeats work, the main thread's share what cannot run in parallel.
import { readdirSync, readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { consume } from "./harness.js";

interface BatchCounter {
  countMany(texts: readonly string[]): Uint32Array;
  countManyAsync(texts: readonly string[]): Promise<Uint32Array>;
}

interface ThreadTimes {
  cpuMs: number;
  waitMs: number;
}

/** CPU time and run-queue wait of each thread of this process (empty where /proc has no schedstat). */
function threadTimes(): Map<string, ThreadTimes> {
  const out = new Map<string, ThreadTimes>();
  let tids: string[] = [];
  try {
    tids = readdirSync("/proc/self/task");
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const [cpu, wait] = readFileSync(`/proc/self/task/${tid}/schedstat`, "utf8").split(" ").map(Number);
      out.set(tid, { cpuMs: (cpu as number) / 1e6, waitMs: (wait as number) / 1e6 });
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

interface Pass {
  wallMs: number;
  /** The main thread's CPU time (for countManyAsync: reading the strings, queueing, completing). */
  mainCpuMs: number;
  /** CPU time of each other thread that counted (the pool's jobs), largest first. */
  jobsCpuMs: number[];
  /** Time the process's threads spent ready to run but waiting for a CPU. */
  waitMs: number;
}

async function timedPass(run: () => unknown): Promise<Pass> {
  const before = threadTimes();
  const start = process.hrtime.bigint();
  await run();
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  const after = threadTimes();
  const main = String(process.pid);
  let mainCpuMs = 0;
  let waitMs = 0;
  const jobsCpuMs: number[] = [];
  for (const [tid, now] of after) {
    const then = before.get(tid) ?? { cpuMs: 0, waitMs: 0 };
    const cpuMs = now.cpuMs - then.cpuMs;
    waitMs += now.waitMs - then.waitMs;
    if (tid === main) mainCpuMs = cpuMs;
    else if (cpuMs > 1) jobsCpuMs.push(cpuMs); // the garbage collector's and libuv's idle threads barely run
  }
  jobsCpuMs.sort((a, b) => b - a);
  return { wallMs, mainCpuMs, jobsCpuMs, waitMs };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/**
 * Prints one line: countMany and countManyAsync on `texts`, each pass starting with cold caches
 * (`clear`), passes interleaved so that both see the same machine; medians of `passes`.
 */
export async function compareCountManyAsync(
  label: string,
  counter: BatchCounter,
  texts: string[],
  clear: () => void,
  passes = 5,
): Promise<void> {
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  const sync: Pass[] = [];
  const pooled: Pass[] = [];
  // Once untimed: what happens once per counter and thread (a model's first caches, the pool's threads).
  consume(counter.countMany(texts).length);
  consume((await counter.countManyAsync(texts)).length);
  for (let pass = 0; pass < passes; pass++) {
    clear();
    sync.push(await timedPass(() => consume(counter.countMany(texts).length)));
    clear();
    pooled.push(await timedPass(async () => consume((await counter.countManyAsync(texts)).length)));
  }
  const syncWall = median(sync.map((p) => p.wallMs));
  const asyncWall = median(pooled.map((p) => p.wallMs));
  const mbps = (ms: number) => (bytes / 1e3 / ms).toFixed(1);
  const threads = Math.min(cpus().length, 4);
  let line = `${label}: countMany (1 thread): ${mbps(syncWall)} MB/s; countManyAsync, the same batch on ${threads} worker threads: ${mbps(asyncWall)} MB/s (${(syncWall / asyncWall).toFixed(2)}x)`;
  if (threadTimes().size > 0) {
    // CPU figures: what the split costs and allows, whatever else the machine runs. The threads
    // beyond the pool's jobs (the garbage collector's) are counted in the total, not as jobs.
    const syncCpu = median(sync.map((p) => p.mainCpuMs));
    const mainCpu = median(pooled.map((p) => p.mainCpuMs));
    const jobCpu = (p: Pass) => p.jobsCpuMs.slice(0, threads);
    const totalCpu = median(pooled.map((p) => p.mainCpuMs + p.jobsCpuMs.reduce((n, j) => n + j, 0)));
    const typical = pooled.find((p) => p.mainCpuMs + p.jobsCpuMs.reduce((n, j) => n + j, 0) === totalCpu) ?? (pooled[0] as Pass);
    // On idle cores the jobs, taking texts until none is left, finish within one text of each
    // other: the main thread's part, then the jobs' work shared out.
    const idle = median(pooled.map((p) => p.mainCpuMs + jobCpu(p).reduce((n, j) => n + j, 0) / threads));
    const waitShare = median(pooled.map((p) => p.waitMs / (p.waitMs + p.mainCpuMs + p.jobsCpuMs.reduce((n, j) => n + j, 0))));
    line +=
      `; CPU: countMany ${syncCpu.toFixed(0)} ms, countManyAsync ${totalCpu.toFixed(0)} ms (main thread ${mainCpu.toFixed(0)} ms, jobs ${jobCpu(
        typical,
      )
        .map((j) => j.toFixed(0))
        .join(" / ")} ms)` +
      `, so up to ${(syncCpu / idle).toFixed(2)}x on ${threads} idle cores; the threads were ready but waiting for a CPU ${(100 * waitShare).toFixed(0)}% of their time (load average ${loadavg()[0]?.toFixed(1)})`;
  }
  console.log(line);
}
