// The trajectory benchmark's tables: per window and method what the requests kept, their faults,
// the summaries' bounds; the ratios the issue's "done when" reads; per kind of question; per run
// (--verbose). The same figures go to --json for diffing runs.
import type { ManifestEntry } from "./data.js";
import { dropOldest, effectiveLimit, METHODS, MAX_SUMMARY_TOKENS } from "./methods.js";
import { QUESTION_KINDS } from "./questions.js";
import { emptyVerdicts, type Tally, type VerdictCounts } from "./replay.js";

export interface Results {
  split: string;
  sample: number;
  windows: number[];
  runs: number;
  /** Requests in the runs (each `sample`-th checked). */
  requests: number;
  methods: string[];
  /** By `${window}|${method}`. */
  totals: Record<string, Tally>;
  perRun: Record<string, Record<string, Tally>>;
  /**
   * By window: the runs whose system messages and task leave what the prompt may use there no room
   * for their smallest exchange, or exceed it (left out of that window's figures).
   */
  pinnedOverWindow: Record<number, { runs: string[]; requests: number }>;
  seconds?: number;
  /** CPU time of the replays (this process, user + system). */
  cpuSeconds?: number;
}

const DEFAULT = METHODS[0]?.name as string;
const SUMMARIZE = METHODS[1]?.name as string;

function all(t: Tally): VerdictCounts {
  const sum = emptyVerdicts();
  for (const kind of QUESTION_KINDS) for (const v of ["present", "recoverable", "lost"] as const) sum[v] += t.answers[kind][v];
  return sum;
}

function share(part: number, whole: number): string {
  return whole === 0 ? "-" : `${((100 * part) / whole).toFixed(1)}%`;
}

export function lostShare(t: Tally): number {
  const v = all(t);
  const n = v.present + v.recoverable + v.lost;
  return n === 0 ? 0 : v.lost / n;
}

function verdicts(v: VerdictCounts): string {
  const n = v.present + v.recoverable + v.lost;
  if (n === 0) return "-";
  return [v.present, v.recoverable, v.lost].map((x) => ((100 * x) / n).toFixed(1)).join(" / ") + "%";
}

const windowLabel = (w: number) => `${w / 1000}K`;

export function printTables(results: Results, entries: readonly ManifestEntry[], verbose: boolean): void {
  const agentCounts = [...new Set(entries.map((e) => e.agent))]
    .map((a) => `${entries.filter((e) => e.agent === a).length} ${a}`)
    .join(", ");
  console.log(
    `${results.runs} runs (${agentCounts}), ${results.requests.toLocaleString("en-US")} requests${results.sample > 1 ? `, every ${results.sample}th checked (and each run's last)` : ""}; gpt-4o counter, window = the prompt's effective limit at that maxTokens.\n`,
  );
  for (const window of results.windows) {
    const over = results.pinnedOverWindow[window];
    if (over === undefined) continue;
    const byAgent: Record<string, number> = {};
    for (const e of entries) if (over.runs.includes(e.id)) byAgent[e.agent] = (byAgent[e.agent] ?? 0) + 1;
    console.log(
      `At ${windowLabel(window)} the system messages and the task leave no room for even the smallest exchange (a call and its results) in the ${effectiveLimit(window).toLocaleString("en-US")} tokens the prompt may use, or exceed them, in ${over.runs.length} runs (${Object.entries(
        byAgent,
      )
        .map(([a, n]) => `${n} ${a}`)
        .join(
          ", ",
        )}; ${over.requests.toLocaleString("en-US")} requests): no method that keeps the task can put anything the agent did in their requests, and they are left out of that window's figures.\n`,
    );
  }
  console.log(
    "| window | method | checked requests | present / recoverable / lost | open error line lost | newest result missing (drop-oldest keeps it) | over window | task missing | split units | summaries over " +
      (MAX_SUMMARY_TOKENS + 100) +
      " tokens (largest) | open problems from read-only commands |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const window of results.windows) {
    for (const method of results.methods) {
      const t = results.totals[`${window}|${method}`];
      if (t === undefined) continue;
      const error = t.answers["open-error"];
      const errors = error.present + error.recoverable + error.lost;
      const summaries = t.summaries === 0 ? "-" : `${t.summariesOverBound} of ${t.summaries} (${t.largestSummary})`;
      const problems =
        t.openProblemsListed === 0
          ? "-"
          : `${share(t.openProblemsFromReadOnly, t.openProblemsListed)} of ${t.openProblemsListed}${t.openProblemsUnmatched ? ` (${t.openProblemsUnmatched} unmatched)` : ""}`;
      console.log(
        `| ${windowLabel(window)} | ${method} | ${t.requests} | ${verdicts(all(t))} | ${share(error.lost, errors)} | ${t.newestMissing} (${t.newestMissingWhereDropOldestKeeps}) | ${t.overWindow} | ${t.taskMissing} | ${t.splitUnits} | ${summaries} | ${problems} |`,
      );
    }
  }
  console.log(
    "\nLost, against dropping the oldest turns at the same window (the issue's done-when: SUMMARIZE at most 0.5, the default mode at most 1.0):\n",
  );
  for (const window of results.windows) {
    const base = results.totals[`${window}|${dropOldest.name}`];
    if (base === undefined) continue;
    const ratio = (method: string) => {
      const t = results.totals[`${window}|${method}`];
      const b = lostShare(base);
      return t === undefined ? "-" : b === 0 ? "n/a (drop-oldest lost nothing)" : (lostShare(t) / b).toFixed(2);
    };
    console.log(
      `- ${windowLabel(window)}: summarize ${ratio(SUMMARIZE)}, default mode ${ratio(DEFAULT)}; sliding_window ${ratio("sliding_window")}, token_budget ${ratio("token_budget")}, LangChain trimMessages ${ratio("LangChain trimMessages")}`,
    );
  }
  console.log("\nLost by question (share of that question's answers):\n");
  console.log(`| window | method | ${QUESTION_KINDS.join(" | ")} |`);
  console.log(`|---|---|${QUESTION_KINDS.map(() => "---").join("|")}|`);
  for (const window of results.windows) {
    for (const method of results.methods) {
      const t = results.totals[`${window}|${method}`];
      if (t === undefined) continue;
      const cells = QUESTION_KINDS.map((k) => {
        const v = t.answers[k];
        return share(v.lost, v.present + v.recoverable + v.lost);
      });
      console.log(`| ${windowLabel(window)} | ${method} | ${cells.join(" | ")} |`);
    }
  }
  const agents = [...new Set(entries.map((e) => e.agent))];
  if (agents.length > 1) {
    console.log("\nLost by agent (share of that agent's answers; its runs at that window):\n");
    console.log(`| window | method | ${agents.join(" | ")} |`);
    console.log(`|---|---|${agents.map(() => "---").join("|")}|`);
    for (const window of results.windows) {
      for (const method of results.methods) {
        const cells = agents.map((agent) => {
          const sum = emptyVerdicts();
          for (const e of entries.filter((x) => x.agent === agent)) {
            const t = results.perRun[e.id]?.[`${window}|${method}`];
            if (t === undefined) continue;
            const v = all(t);
            for (const k of ["present", "recoverable", "lost"] as const) sum[k] += v[k];
          }
          return share(sum.lost, sum.present + sum.recoverable + sum.lost);
        });
        console.log(`| ${windowLabel(window)} | ${method} | ${cells.join(" | ")} |`);
      }
    }
  }
  const errors = Object.entries(results.totals).filter(([, t]) => t.error !== undefined);
  if (errors.length > 0) {
    console.log("\nReplays stopped by an error:");
    for (const [run, byKey] of Object.entries(results.perRun))
      for (const [key, t] of Object.entries(byKey))
        if (t.error !== undefined) console.log(`- ${run}, ${key.replace("|", " ")}: ${t.error}`);
  }
  if (verbose) {
    console.log("\nLost per run (share of its answers):\n");
    const keys = results.windows.flatMap((w) => results.methods.map((m) => `${w}|${m}`));
    console.log(`| run | requests | ${keys.map((k) => k.replace("|", " ")).join(" | ")} |`);
    console.log(`|---|---|${keys.map(() => "---").join("|")}|`);
    for (const [run, byKey] of Object.entries(results.perRun)) {
      const first = Object.values(byKey)[0];
      console.log(
        `| ${run} | ${first?.requests ?? 0} | ${keys
          .map((k) =>
            byKey[k] === undefined
              ? "-"
              : share(
                  all(byKey[k] as Tally).lost,
                  Object.values(all(byKey[k] as Tally)).reduce((a, b) => a + b, 0),
                ),
          )
          .join(" | ")} |`,
      );
    }
  }
  if (results.seconds !== undefined)
    console.log(
      `\n${results.seconds.toFixed(0)} s (${(results.cpuSeconds ?? 0).toFixed(0)} s of CPU) for ${results.runs} runs x ${results.windows.length} windows x ${results.methods.length} methods.`,
    );
}
