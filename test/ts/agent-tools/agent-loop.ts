// The script every framework's agent-tools test plays: a 60-step coding loop in an 80,000-token
// window (tool outputs of 1,000 to 3,000 tokens, support/tool-loop.ts), where the scripted model
// calls context_status at call 10 and 45 and compact_context at call 20, keeping call_3 verbatim
// and a finding as text. Each request is read in the provider's shape by the framework's test and
// handed to `Script.next`, which checks it and says what the model does next:
// - every request fits the window with its tools and reserved output;
// - at call 20 nothing was compacted yet; at call 21 (the next request) it was: call_3's result
//   is whole, the older results beside it are cleared, the kept finding is carried, the tool's
//   answer said "Queued, not done yet";
// - the asked compaction lasts: at every later request the results it cleared are still cleared
//   (or gone with a later compaction), never whole again; until the next compaction's notice
//   call_3 is whole and the finding is carried where there is room for it (the results went out
//   whole again at these requests before: the whole history fit);
// - every notice the caller was told of (onNotice) reached exactly one request, and each request
//   carries at most one notice of a kind.
import { expect } from "vitest";
import { getCounter, type ToolDefinition } from "ctxwin";
import type { NoticeEvent } from "ctxwin/context";
import { FINAL, MODEL, toolOutput } from "../support/tool-loop.js";

export const STEPS = 60;
export const WINDOW = 80000;
export const RESERVED_OUTPUT = 1000;
export const LIMITS = { maxTokens: WINDOW, maxOutputTokens: RESERVED_OUTPUT };
export const STATUS_CALLS = [10, 45];
export const COMPACT_CALL = 20;
export const FINDING = "finding: parseIsoDate drops the zone offset";
export const NOTICES = { afterCompaction: true, beforeCompaction: { at: 0.7 } };
/** The adapters' options for the loop: level 1 cuts no read on arrival (they are up to 3,000 tokens), so "whole" means whole. */
export const COMPACTION = { maxToolResultTokens: 4000 };
export { FINAL };

export type Move =
  | { kind: "read"; step: number; callId: string }
  | { kind: "status"; callId: string }
  | { kind: "compact"; callId: string; input: { reason: string; keep: string[] } }
  | { kind: "final"; text: string };

/** A request as the script reads it: its texts (every message's text and tool results), and the results by call id. */
export interface ReadRequest {
  /** The request's count with its tools (the framework's test counts it in its own shape). */
  tokens: number;
  /** Every message's text, in order (tool results included). */
  texts: string[];
  results: Map<string, string>;
}

const counter = getCounter(MODEL);

export class Script {
  call = 0;
  readonly notices: NoticeEvent[] = [];
  /** Per notice text, the requests that carried it. */
  private readonly seen = new Map<string, number>();
  /** Each context_status answer, as the model first read it (a later request may hold it cleared). */
  private readonly statusById = new Map<string, string>();
  compactAnswer: string | undefined;
  /** The placeholders of the results the asked compaction cleared, by call id. */
  private readonly cleared = new Map<string, string>();
  /** Requests after the asked compaction's, before the next compaction's notice: it had to last through them. */
  lasted = 0;
  private compactedAgain = false;
  readonly onNotice = (event: NoticeEvent): void => {
    this.notices.push(event);
  };

  next(request: ReadRequest): Move {
    this.call++;
    const call = this.call;
    expect(request.tokens + RESERVED_OUTPUT, `request ${call} is over the window`).toBeLessThanOrEqual(WINDOW);
    const notes = request.texts.filter((t) => t.startsWith("[ctxwin] Context compacted:") || t.startsWith("[ctxwin] Context "));
    const compacted = notes.filter((t) => t.startsWith("[ctxwin] Context compacted:"));
    expect(compacted.length, `request ${call} carries ${compacted.length} compaction notices`).toBeLessThanOrEqual(1);
    expect(notes.length - compacted.length, `request ${call} carries more than one warning`).toBeLessThanOrEqual(1);
    for (const note of notes) this.seen.set(note, (this.seen.get(note) ?? 0) + 1);
    for (const id of ["status_10", "status_45"]) {
      const answer = request.results.get(id);
      if (answer !== undefined && !this.statusById.has(id)) this.statusById.set(id, answer);
    }
    if (call === COMPACT_CALL) {
      // Nothing compacted yet: every read so far is whole.
      for (let step = 1; step < call; step++) {
        if (step === 10) continue;
        expect(request.results.get(`call_${step}`), `call_${step} at request ${call}`).toBe(toolOutput(step));
      }
    }
    if (call === COMPACT_CALL + 1) {
      this.compactAnswer = request.results.get("compact_20");
      expect(this.compactAnswer).toMatch(/^Queued, not done yet: a compaction runs before your next request \(phase one done\)/);
      expect(this.compactAnswer).toContain("Kept verbatim: call_3");
      expect(request.results.get("call_3")).toBe(toolOutput(3));
      expect(request.results.get("call_4")).toMatch(/^\[tool result cleared: [\d.]+ (KB|B); recall\("call_4"\)\]/);
      expect(request.texts.some((t) => t.includes(`Kept through compaction at your request: ${FINDING}`))).toBe(true);
      expect(compacted).toHaveLength(1);
      expect(compacted[0]).toContain("tool results cleared");
      for (const [id, value] of request.results) if (value.startsWith("[tool result cleared:")) this.cleared.set(id, value);
      expect(this.cleared.size).toBeGreaterThanOrEqual(5);
    }
    if (call > COMPACT_CALL + 1) {
      // The whole history fits again (it did at request 20), yet what the compaction took stays taken.
      for (const [id, placeholder] of this.cleared)
        expect(request.results.get(id) ?? placeholder, `${id} at request ${call}`).toBe(placeholder);
      if (compacted.length > 0) this.compactedAgain = true;
      if (!this.compactedAgain) {
        // The note joins a request that has room for it (docs/agent-tools.md): within the window
        // less the reserved output and the limits' default reserve of 1,000 tokens.
        if (request.tokens + RESERVED_OUTPUT + 1000 + 100 <= WINDOW)
          expect(
            request.texts.some((t) => t.includes(`Kept through compaction at your request: ${FINDING}`)),
            `the finding at request ${call}`,
          ).toBe(true);
        expect(request.results.get("call_3"), `call_3 at request ${call}`).toBe(toolOutput(3));
        this.lasted++;
      }
    }
    if (STATUS_CALLS.includes(call)) return { kind: "status", callId: `status_${call}` };
    if (call === COMPACT_CALL)
      return { kind: "compact", callId: `compact_${call}`, input: { reason: "phase one done", keep: ["call_3", FINDING] } };
    if (call === STEPS) return { kind: "final", text: FINAL };
    return { kind: "read", step: call, callId: `call_${call}` };
  }

  /** After the loop: the status answers bounded and right, every notice told reached exactly one request. */
  finish(): void {
    expect(this.call).toBe(STEPS);
    const answers = [...this.statusById.values()];
    expect(answers).toHaveLength(2);
    const [first, second] = answers as [string, string];
    expect(first).toMatch(/^Context: \d+ of \d+ tokens used/);
    expect(first).toContain("Compactions: none yet.");
    expect(second).toMatch(/#1 before request 21 \(asked: phase one done\)/);
    for (const answer of answers) expect(counter.count(answer)).toBeLessThanOrEqual(400);
    const after = this.notices.filter((n) => n.kind === "afterCompaction");
    expect(after.length).toBeGreaterThanOrEqual(2); // the asked one, and the window's own later
    expect(this.notices.some((n) => n.kind === "beforeCompaction")).toBe(true);
    for (const notice of this.notices) expect(this.seen.get(`[ctxwin] ${notice.text}`), notice.text).toBe(1);
    expect(this.seen.size).toBe(this.notices.length);
    // The window's own compaction came well after the asked one: the check above ran on many requests.
    expect(this.lasted).toBeGreaterThanOrEqual(20);
  }
}

/** The tool definitions a test counts requests with (the framework's own are counted by the adapter). */
export type { ToolDefinition };
