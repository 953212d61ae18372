// The script every framework's large-result recall test plays (invariant 14: what any level takes
// stays recallable as the bytes the caller added, before any cut on arrival). A scripted model
// fetches RESULTS large tool results (20 KB and more: log lines, one-line JSON, mixed scripts with
// emoji and lines longer than one answer), each of which the adapter cuts on arrival and later
// clears; then it recalls each by id (the recall tool answers with the whole original) and pages
// through each by lines, from what it reads in its own prompt: every page's last line says where
// to go on (the next lines, or the column inside a line cut), and the pages joined must be the
// original, byte for byte. Every request is checked on the way: within the window, every result
// after its call, and each fetched result whole, or a cut or a placeholder naming the recall call
// that reads it back.
import { expect } from "vitest";
import { getCounter, type ToolDefinition } from "ctxwin";
import type { RecallInput } from "ctxwin/recall";

export const MODEL = "gpt-4o";
export const WINDOW = 16_000;
export const RESERVED_OUTPUT = 1_000;
export const LIMITS = { maxTokens: WINDOW, maxOutputTokens: RESERVED_OUTPUT };
/** The adapters' level 1 bound (maxToolResultTokens), and the bound of one page: a report is 5 to 10 times as long. */
export const MAX_RESULT_TOKENS = 2_000;
/** The recall tool's bound: a whole original by id. */
export const RECALL_TOKENS = 20_000;
export const RESULTS = 25;
export const SYSTEM = "You are an operations agent. Fetch the reports, then read each one back in full before you answer.";
export const TASK = "Fetch reports 1 to 25 and check that every one of them can be read back whole.";
export const FINAL = "All 25 reports read back whole.";
export const FETCH_TOOL = "fetch_report";

const counter = getCounter(MODEL);
const utf8 = new TextEncoder();
const cache = new Map<number, { text: string; value: string | object }>();

/** A deterministic pseudo-random sequence (xorshift), so that every report differs. */
function random(seed: number): () => number {
  let x = (seed * 2654435761) >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}

const WORDS = [
  "résumé",
  "naïve",
  "café",
  "数据",
  "校验",
  "通过",
  "Ελληνικά",
  "עברית",
  "русский",
  "日本語",
  "한국어",
  "🙂",
  "🚀",
  "👩🏽‍💻",
  "ok",
  "batch",
  "queue",
];

/**
 * Report `k`: its text (what a recall returns) and the value the tool returns (the text, or for a
 * JSON report the object whose JSON is the text). Three kinds, each at least 20 KB of UTF-8.
 */
export function report(k: number): { text: string; value: string | object } {
  const cached = cache.get(k);
  if (cached !== undefined) return cached;
  const next = random(k);
  const pick = () => WORDS[Math.floor(next() * WORDS.length)] as string;
  let made: { text: string; value: string | object };
  if (k % 3 === 2) {
    const items: object[] = [];
    for (let i = 0; utf8.encode(JSON.stringify({ report: k, items })).length < 21_000; i++) {
      items.push({
        id: `${k}-${i}`,
        name: `${pick()} ${pick()}`,
        score: Math.round(next() * 1e6) / 1e3,
        ok: next() > 0.1,
        tags: [pick(), pick()],
      });
    }
    const value = { report: k, items };
    made = { text: JSON.stringify(value), value };
  } else if (k % 3 === 1) {
    const lines: string[] = [`$ fetch_report ${k}`];
    for (let i = 0; utf8.encode(lines.join("\n")).length < 21_000; i++) {
      lines.push(
        i === 120
          ? `Traceback (most recent call last):\n  File "worker.py", line ${40 + k}, in run\nValueError: checksum mismatch in batch ${k}-${i}`
          : `2024-05-0${1 + (k % 9)}T12:${String(i % 60).padStart(2, "0")}:00Z INFO worker-${k} processed batch ${i} in ${Math.floor(next() * 900)} ms (queue depth ${Math.floor(next() * 50)})`,
      );
    }
    made = { text: lines.join("\n"), value: lines.join("\n") };
  } else {
    const lines: string[] = [];
    for (let i = 0; utf8.encode(lines.join("\n")).length < 20_480; i++) {
      // Now and then a line longer than one answer: read on by column.
      const words = i % 40 === 7 ? 900 : 6 + Math.floor(next() * 10);
      lines.push(`第${i}行 ${Array.from({ length: words }, pick).join(" ")}`);
      if (i % 25 === 3) lines.push("");
    }
    made = { text: lines.join("\n"), value: lines.join("\n") };
  }
  expect(utf8.encode(made.text).length).toBeGreaterThanOrEqual(20_480);
  cache.set(k, made);
  return made;
}

export type LargeMove =
  | { kind: "fetch"; callId: string; k: number }
  | { kind: "recall"; callId: string; input: RecallInput }
  | { kind: "final"; text: string };

/** What a framework's test reads of one request: each tool result's text by its call id (in order), and the call ids in order. */
export interface RequestView {
  results: ReadonlyMap<string, string>;
  callIds: readonly string[];
}

/** A cut or a placeholder that names `recall("<id>")` (JSON-escaped inside a JSON result). */
function namesRecall(text: string, id: string): boolean {
  const call = `recall(${JSON.stringify(id)})`;
  return text.includes(call) || text.includes(JSON.stringify(call).slice(1, -1));
}

/**
 * The scripted model: fetch every report, recall each by id, then page through each from what
 * the prompt shows. `next` checks the request it is given and says the next move.
 */
export class LargeRecallScript {
  calls = 0;
  /** Each report joined from its pages, by k. */
  readonly paged = new Map<number, string>();
  /** The recall call of each report by id, by k. */
  readonly byId = new Map<number, string>();
  private phase: "fetch" | "id" | "page" | "done" = "fetch";
  private k = 1;
  private pages: string[] = [];
  private pageCall = 0;
  private lastCall: string | undefined;

  next(view: RequestView): LargeMove {
    this.calls++;
    this.check(view);
    const move = this.decide(view);
    if (move.kind !== "final") this.lastCall = move.callId;
    return move;
  }

  private check(view: RequestView): void {
    if (this.lastCall !== undefined)
      expect(view.callIds, `the call the model just made (${this.lastCall}) is in its next request`).toContain(this.lastCall);
    for (const [id, text] of view.results) {
      expect(view.callIds, `result ${id} without its call`).toContain(id);
      const fetched = /^call_(\d+)$/.exec(id);
      if (fetched !== null && text === report(Number(fetched[1])).text) continue;
      if (text.includes("[Output truncated...") || text.startsWith("[tool result cleared: ")) {
        expect(namesRecall(text, id), `the cut or placeholder of ${id} names recall("${id}"): ${text.slice(0, 160)}`).toBe(true);
        if (text.includes("[Output truncated...")) expect(counter.count(text)).toBeLessThanOrEqual(MAX_RESULT_TOKENS);
        continue;
      }
      // A fetched report reaches the model whole, cut or cleared: never another text.
      expect(fetched, `the result of ${id} as the model sees it: ${text.slice(0, 160)}`).toBeNull();
    }
  }

  private decide(view: RequestView): LargeMove {
    if (this.phase === "fetch") {
      const k = this.k++;
      if (this.k > RESULTS) [this.phase, this.k] = ["id", 1];
      return { kind: "fetch", callId: `call_${k}`, k };
    }
    if (this.phase === "id") {
      const k = this.k++;
      if (this.k > RESULTS) [this.phase, this.k] = ["page", 1];
      const callId = `recall_${k}`;
      this.byId.set(k, callId);
      return { kind: "recall", callId, input: { id: `call_${k}` } };
    }
    if (this.phase === "page") {
      const id = `call_${this.k}`;
      if (this.pageCall === 0) return this.page(id, { lines: [1, 1_000_000] });
      // The page just read, as the prompt shows it: its text, and its last line saying where to go on.
      const shown = view.results.get(`page_${this.k}_${this.pageCall}`);
      expect(shown, `page ${this.pageCall} of ${id} is in the request`).toBeDefined();
      const text = shown as string;
      const head = `\n[recall ${JSON.stringify(id)}: `;
      const at = text.lastIndexOf(head);
      if (at < 0) {
        // The whole original in one answer: only the first page can be that.
        expect(this.pageCall, `page ${this.pageCall} of ${id} says where it is: ${text.slice(0, 200)}`).toBe(1);
        return this.finishPaging(text);
      }
      this.pages.push(text.slice(0, at));
      const trailer = text.slice(at + 1);
      const column = /ask for lines \[(\d+), (\d+)\] with column (\d+) next\]$/.exec(trailer);
      if (column !== null) {
        this.pages.push("");
        return this.page(id, { lines: [Number(column[1]), Number(column[2])], column: Number(column[3]) });
      }
      const lines = /ask for lines \[(\d+), (\d+)\] next\]$/.exec(trailer);
      if (lines !== null) {
        this.pages.push("\n");
        return this.page(id, { lines: [Number(lines[1]), Number(lines[2])] });
      }
      return this.finishPaging(undefined);
    }
    return { kind: "final", text: FINAL };
  }

  private page(id: string, query: Omit<RecallInput, "id">): LargeMove {
    this.pageCall++;
    return { kind: "recall", callId: `page_${this.k}_${this.pageCall}`, input: { id, ...query, maxTokens: MAX_RESULT_TOKENS } };
  }

  private finishPaging(whole: string | undefined): LargeMove {
    this.paged.set(this.k, whole ?? this.pages.join(""));
    this.pages = [];
    this.pageCall = 0;
    this.k++;
    if (this.k > RESULTS) {
      this.phase = "done";
      return { kind: "final", text: FINAL };
    }
    return this.decide({ results: new Map(), callIds: [] });
  }
}

/** After a run: every report came back whole by id (`byIdOutput` reads what the framework recorded for a recall call) and joined from its pages. */
export function expectEveryReportBack(script: LargeRecallScript, byIdOutput: (callId: string) => unknown): void {
  expect(script.paged.size).toBe(RESULTS);
  for (let k = 1; k <= RESULTS; k++) {
    const original = report(k).text;
    expect(byIdOutput(script.byId.get(k) as string) === original, `report ${k} by id`).toBe(true);
    expect(script.paged.get(k) === original, `report ${k} paged by lines`).toBe(true);
  }
}

/** A message of a provider prompt (the AI SDK's LanguageModelV3 / V4 prompt, which Mastra sends too). */
export interface ProviderMessage {
  role: string;
  content: unknown;
}
type ProviderPart = { type: string; toolCallId?: string; output?: { type: string; value: unknown } };

/** A provider prompt as a RequestView, checked to fit the window with `tools` and the reserved output. */
export function providerView(prompt: readonly ProviderMessage[], tools: ToolDefinition[]): RequestView {
  expect(counter.countMessages(prompt as never, { tools }) + RESERVED_OUTPUT).toBeLessThanOrEqual(WINDOW);
  const results = new Map<string, string>();
  const callIds: string[] = [];
  for (const message of prompt) {
    for (const part of (Array.isArray(message.content) ? message.content : []) as ProviderPart[]) {
      if (part.type === "tool-call") callIds.push(part.toolCallId as string);
      if (part.type !== "tool-result") continue;
      const output = part.output as { type: string; value: unknown };
      // A json output a level cleared holds the placeholder as a JSON string: its text is that string.
      results.set(
        part.toolCallId as string,
        output.type === "json" && typeof output.value !== "string" ? JSON.stringify(output.value) : String(output.value),
      );
    }
  }
  return { results, callIds };
}

/** What a scripted AI SDK model (LanguageModelV3 / V4, which Mastra drives too) returns for `move`. */
export function providerResult<U>(move: LargeMove, usage: U) {
  if (move.kind === "final")
    return {
      content: [{ type: "text" as const, text: move.text }],
      finishReason: { unified: "stop" as const, raw: undefined },
      usage,
      warnings: [],
    };
  const [toolName, input] = move.kind === "fetch" ? [FETCH_TOOL, { k: move.k }] : ["recall", move.input];
  return {
    content: [{ type: "tool-call" as const, toolCallId: move.callId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls" as const, raw: undefined },
    usage,
    warnings: [],
  };
}

/** Model calls a run takes at most: every fetch, every recall by id, every page (a page is at least a few hundred tokens), the answer. */
export const MAX_STEPS = 2 * RESULTS + RESULTS * 40 + 5;
