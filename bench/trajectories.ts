// `npm run bench -- trajectories [--split dev|heldout|fresh|all] [--trajectories <dir>] [--json <file>] [--verbose] [--sample <n>] [--windows 8000,16000] [--limit <n>]`:
// real agent runs (bench/trajectories/manifest.json: mini-swe-agent, SWE-agent and, in the fresh
// split, OpenHands on SWE-bench tasks) replayed request by request through MessageContextManager in
// every mode and through two baselines, each request checked against questions generated from the
// trajectory alone
// (bench/trajectories/README.md says what each figure means). The files live outside the
// repository; without them this part says which are missing and how to get them, and fails alone.
import { resolve } from "node:path";
import { TiktokenCounter } from "ctxwin";
import { writeFileSync } from "node:fs";
import { convertTrajectory, type ChatMessage } from "./trajectories/convert.js";
import { entriesOfSplit, loadRuns, missingReport, readManifest, trajectoriesDir, type ManifestEntry } from "./trajectories/data.js";
import { METHODS, dropOldest, effectiveLimit } from "./trajectories/methods.js";
import { callRecords, generateQuestions } from "./trajectories/questions.js";
import { addTally, emptyTally, replay, type PreparedRun, type Tally } from "./trajectories/replay.js";
import { printTables, type Results } from "./trajectories/report.js";

export const TRAJECTORY_OPTIONS = {
  split: { type: "string" },
  trajectories: { type: "string" },
  json: { type: "string" },
  verbose: { type: "boolean" },
  sample: { type: "string" },
  windows: { type: "string" },
  limit: { type: "string" },
} as const;

export interface TrajectoryOptions {
  split?: string;
  trajectories?: string;
  json?: string;
  verbose?: boolean;
  sample?: string;
  windows?: string;
  limit?: string;
}

const ROOT = resolve(import.meta.dirname, "..");

function positive(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`--${name} must be a positive integer, got ${value}`);
  return n;
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}

/** The tokens of a run's smallest exchange: an assistant message that calls tools, with their results. */
function smallestExchange(messages: readonly ChatMessage[], counter: TiktokenCounter): number {
  const tokens = counter.countEachMessage(messages as never);
  let smallest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as ChatMessage;
    if (message.role !== "assistant" || (message.tool_calls?.length ?? 0) === 0) continue;
    let sum = tokens[i] as number;
    for (let j = i + 1; j < messages.length && messages[j]?.role === "tool"; j++) sum += tokens[j] as number;
    smallest = Math.min(smallest, sum);
  }
  return Number.isFinite(smallest) ? smallest : 0;
}

export async function benchTrajectories(options: TrajectoryOptions = {}): Promise<Results | undefined> {
  const split = options.split ?? "dev";
  const sample = positive(options.sample, "sample", 1);
  const windows = (options.windows ?? "8000,16000").split(",").map((w) => positive(w, "windows", 0));
  const entries = entriesOfSplit(readManifest().entries, split).slice(0, positive(options.limit, "limit", Number.MAX_SAFE_INTEGER));
  const dir = trajectoriesDir(options.trajectories, ROOT);
  const { runs, missing, changed } = loadRuns(dir, entries);
  console.log(`\n### Compaction on real agent trajectories (${split} split: ${entries.length} runs, ${dir})\n`);
  if (missing.length > 0 || changed.length > 0) {
    console.error(missingReport(dir, missing, changed));
    process.exitCode = 1;
    return undefined;
  }
  const counter = new TiktokenCounter({ model: "gpt-4o" });
  const prepared: Array<PreparedRun & { entry: ManifestEntry }> = runs.map(({ entry, data }) => {
    const converted = convertTrajectory(data);
    // Every method reads the same message objects: frozen, so that a method that changed one
    // (ctxwin promises not to) fails its replay, reported, instead of skewing the others.
    deepFreeze(converted.messages);
    return {
      entry,
      id: entry.id,
      messages: converted.messages,
      questions: generateQuestions(converted.messages, converted.format === "mini-swe-agent" ? "/testbed" : undefined),
      calls: new Map(callRecords(converted.messages).map((c) => [c.id, c])),
    };
  });
  const results: Results = {
    split,
    sample,
    windows,
    runs: prepared.length,
    requests: 0,
    methods: METHODS.map((m) => m.name),
    totals: {},
    perRun: {},
    pinnedOverWindow: {},
  };
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  for (const run of prepared) {
    results.perRun[run.id] = {};
    // The system messages and the task, which every method but LangChain's keeps: when they leave
    // no room for even the run's smallest exchange (a call and its results), no request of the run
    // can hold anything the agent did at that window, and none can be made when they exceed it.
    const taskIndex = run.messages.findIndex((m) => m.role === "user");
    const pinned = counter.countMessages(run.messages.filter((m, i) => m.role === "system" || i === taskIndex));
    const exchange = smallestExchange(run.messages, counter);
    for (const window of windows) {
      if (pinned + exchange > effectiveLimit(window)) {
        const over = (results.pinnedOverWindow[window] ??= { runs: [], requests: 0 });
        over.runs.push(run.id);
        over.requests += run.questions.length;
        continue;
      }
      const baseline = await replay(run, dropOldest, window, counter, { sample });
      for (const method of METHODS) {
        const { tally } =
          method === dropOldest
            ? baseline
            : await replay(run, method, window, counter, { sample, dropOldestNewest: baseline.newestPresent });
        const key = `${window}|${method.name}`;
        (results.perRun[run.id] as Record<string, Tally>)[key] = tally;
        const total = (results.totals[key] ??= emptyTally());
        addTally(total, tally);
      }
    }
    if (options.verbose)
      process.stderr.write(`  ${run.id}: ${run.questions.length} requests, ${Math.round(performance.now() - started) / 1000}s so far\n`);
  }
  results.requests = prepared.reduce((sum, r) => sum + r.questions.length, 0);
  results.seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStarted);
  results.cpuSeconds = (cpu.user + cpu.system) / 1e6;
  printTables(
    results,
    prepared.map((r) => r.entry),
    options.verbose ?? false,
  );
  if (options.json !== undefined) {
    writeFileSync(resolve(options.json), `${JSON.stringify(results, null, 1)}\n`);
    console.log(`\nFigures written to ${resolve(options.json)}.`);
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { parseArgs } = await import("node:util");
  const { values } = parseArgs({ options: TRAJECTORY_OPTIONS, allowPositionals: false });
  await benchTrajectories(values);
}
