// One trajectory replayed through one method at one window: every message added as the agent
// produced it, the request taken before each assistant turn, and each request (or each
// `sample`-th, always the same ones) checked against the trajectory's questions.
import type { TiktokenCounter } from "ctxwin";
import type { ChatMessage } from "./convert.js";
import { classify, faults, listedOpenProblems, requestText, summariesIn, type Verdict } from "./evaluate.js";
import { MAX_SUMMARY_TOKENS, effectiveLimit, type Method } from "./methods.js";
import { QUESTION_KINDS, type CallRecord, type QuestionKind, type RequestQuestions } from "./questions.js";

export type VerdictCounts = Record<Verdict, number>;

export interface Tally {
  requests: number;
  answers: Record<QuestionKind, VerdictCounts>;
  overWindow: number;
  /** The largest request, in tokens. */
  largest: number;
  taskMissing: number;
  /** Requests with a tool call apart from its result. */
  splitUnits: number;
  newestMissing: number;
  /** Requests without the newest tool result where dropping the oldest turns kept it. */
  newestMissingWhereDropOldestKeeps: number;
  summaries: number;
  summariesOverBound: number;
  largestSummary: number;
  openProblemsListed: number;
  openProblemsFromReadOnly: number;
  /** Listed problems whose id names no call of the trajectory. */
  openProblemsUnmatched: number;
  /** The error that stopped the replay, if one did. */
  error?: string;
  ms: number;
}

export function emptyVerdicts(): VerdictCounts {
  return { present: 0, recoverable: 0, lost: 0 };
}

export function emptyTally(): Tally {
  return {
    requests: 0,
    answers: Object.fromEntries(QUESTION_KINDS.map((k) => [k, emptyVerdicts()])) as Record<QuestionKind, VerdictCounts>,
    overWindow: 0,
    largest: 0,
    taskMissing: 0,
    splitUnits: 0,
    newestMissing: 0,
    newestMissingWhereDropOldestKeeps: 0,
    summaries: 0,
    summariesOverBound: 0,
    largestSummary: 0,
    openProblemsListed: 0,
    openProblemsFromReadOnly: 0,
    openProblemsUnmatched: 0,
    ms: 0,
  };
}

export interface PreparedRun {
  id: string;
  messages: ChatMessage[];
  questions: RequestQuestions[];
  calls: Map<string, CallRecord>;
}

export interface ReplayResult {
  tally: Tally;
  /** Per checked request: whether its newest tool result was there (undefined: no result yet). */
  newestPresent: Array<boolean | undefined>;
}

/** Whether request `n` (0-based, by assistant turn) is checked: every `sample`-th, and always the last. */
export function sampled(n: number, total: number, sample: number): boolean {
  return n % sample === 0 || n === total - 1;
}

export async function replay(
  run: PreparedRun,
  method: Method,
  window: number,
  counter: TiktokenCounter,
  options: { sample: number; dropOldestNewest?: ReadonlyArray<boolean | undefined> },
): Promise<ReplayResult> {
  const started = performance.now();
  const tally = emptyTally();
  const limit = effectiveLimit(window);
  const task = run.messages.find((m) => m.role === "user")?.content;
  const newestPresent: Array<boolean | undefined> = [];
  const seenSummaries = new Set<string>();
  const replayer = method.start(window, counter);
  let turn = 0;
  let checked = 0;
  let newestCallId: string | undefined;
  try {
    for (let i = 0; i < run.messages.length; i++) {
      const message = run.messages[i] as ChatMessage;
      if (message.role === "assistant") {
        const questions = run.questions[turn];
        const view = await replayer.request();
        if (sampled(turn, run.questions.length, options.sample) && questions !== undefined) {
          const tokens = counter.countMessages(view.messages as never);
          tally.requests++;
          tally.largest = Math.max(tally.largest, tokens);
          if (tokens > limit) tally.overWindow++;
          const f = faults(view.messages, task, newestCallId);
          if (f.taskMissing) tally.taskMissing++;
          if (f.splitUnits > 0) tally.splitUnits++;
          newestPresent.push(f.newestResultPresent);
          if (f.newestResultPresent === false) {
            tally.newestMissing++;
            if (options.dropOldestNewest?.[checked] === true) tally.newestMissingWhereDropOldestKeeps++;
          }
          const text = requestText(view.messages);
          const verdicts = await classify(questions.answers, text, view.recall);
          questions.answers.forEach((a, k) => tally.answers[a.kind][verdicts[k] as Verdict]++);
          for (const summary of summariesIn(view.messages)) {
            if (seenSummaries.has(summary)) continue;
            seenSummaries.add(summary);
            const summaryTokens = counter.count(summary);
            tally.summaries++;
            tally.largestSummary = Math.max(tally.largestSummary, summaryTokens);
            if (summaryTokens > MAX_SUMMARY_TOKENS + 100) tally.summariesOverBound++;
            for (const id of listedOpenProblems(summary)) {
              tally.openProblemsListed++;
              const call = id === undefined ? undefined : run.calls.get(id);
              if (call === undefined) tally.openProblemsUnmatched++;
              else if (call.readOnly) tally.openProblemsFromReadOnly++;
            }
          }
          checked++;
        }
        turn++;
      }
      replayer.add(message);
      if (message.role === "tool") newestCallId = message.tool_call_id;
    }
  } catch (error) {
    tally.error = `${(error as { code?: string }).code ?? (error as Error).name}: ${(error as Error).message} (at message ${turn})`;
  }
  tally.ms = performance.now() - started;
  return { tally, newestPresent };
}

/** Adds `b` into `a`. */
export function addTally(a: Tally, b: Tally): void {
  for (const key of Object.keys(a) as Array<keyof Tally>) {
    if (key === "answers") {
      for (const kind of QUESTION_KINDS)
        for (const v of ["present", "recoverable", "lost"] as const) a.answers[kind][v] += b.answers[kind][v];
    } else if (key === "largest" || key === "largestSummary") a[key] = Math.max(a[key], b[key]);
    else if (key === "error") {
      if (b.error !== undefined) a.error = a.error === undefined ? b.error : `${a.error}; ${b.error}`;
    } else (a[key] as number) += b[key] as number;
  }
}
