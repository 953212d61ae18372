// The default mode (SMART, no model): when usage crosses trimAt, old tool results are cleared to
// placeholders that keep their error lines and name their recall call before any whole turn is
// dropped, at once inside the call that crossed the line; turns go only when clearing cannot reach
// trimTo. At the same window, the turns it shows are never fewer than dropping the oldest shows.
import { describe, expect, it } from "vitest";
import {
  ContextLimits,
  MessageContextManager,
  Recall,
  TiktokenCounter,
  TruncationMode,
  type CompactionReport,
  type MessageLike,
  type TrimEvent,
} from "ctxwin";
import { TokenBudgetStrategy } from "ctxwin/truncation";

const counter = new TiktokenCounter({ model: "gpt-4o" });
const quiet = { warn: () => {} };

type Msg = MessageLike & { role: string; content: unknown; tool_call_id?: string; tool_calls?: Array<{ id: string }> };

const LINE = "  12  tests/test_csv.py::test_quoted_newline PASSED";

function output(lines: number, head: string): string {
  return [head, ...Array.from({ length: lines }, () => LINE)].join("\n");
}

/** Step n: a command and its result (about 13 tokens a line), a failure in every fourth. */
function step(n: number, lines: number): Msg[] {
  const id = `call_${n}`;
  return [
    {
      role: "assistant",
      content: `Running check ${n}.`,
      tool_calls: [{ id, type: "function", function: { name: "bash", arguments: JSON.stringify({ command: `pytest -k case${n}` }) } }],
    } as Msg,
    {
      role: "tool",
      tool_call_id: id,
      content: output(lines, n % 4 === 0 ? `Error: case ${n} failed: expected 3 rows, got 2` : `case ${n}: ok`),
    } as Msg,
  ];
}

function manager(strategy?: TokenBudgetStrategy) {
  return new MessageContextManager<Msg>({
    model: "gpt-4o",
    counter,
    ...(strategy ? { strategy, mode: TruncationMode.TOKEN_BUDGET } : {}),
    limits: new ContextLimits({ model: "gpt-4o", maxTokens: 8000, maxOutputTokens: 0, reservedTokens: 0 }),
    logger: quiet,
  });
}

const TASK = { role: "user", content: "Make the CSV importer accept quoted newlines; keep the public API." } as Msg;

describe("the default mode", () => {
  it("is SMART, and clears old results before it drops a turn", async () => {
    const context = manager();
    expect(context.mode).toBe(TruncationMode.SMART);
    const recall = new Recall({ context });
    const compactions: CompactionReport<Msg>[] = [];
    const trims: TrimEvent<Msg>[] = [];
    context.on("compacted", (report) => compactions.push(report));
    context.on("trimmed", (event) => trims.push(event));
    const added: Msg[] = [TASK];
    context.addMessage(TASK);
    // 600-token results: the ninth step crosses trimAt (6,400 of 8,000).
    for (let n = 0; compactions.length === 0; n++) {
      for (const m of step(n, 45)) {
        context.addMessage(m);
        added.push(m);
      }
    }
    // Nothing dropped: every message is still there, the old results as placeholders.
    expect(trims).toEqual([]);
    expect(context.getMessages().length).toBe(added.length);
    expect(context.tokenUsage).toBeLessThanOrEqual(Math.floor(8000 * 0.6));
    const report = compactions[0] as CompactionReport<Msg>;
    expect(report.levels.find((l) => l.name === "clear_old_tool_results")?.applied).toBe(true);
    expect(report.levels.find((l) => l.name === "truncate")?.applied).toBe(false);
    const cleared = context.getMessages().filter((m) => m.role === "tool" && String(m.content).startsWith("[tool result cleared: "));
    expect(cleared.length).toBeGreaterThan(0);
    for (const m of cleared) expect(String(m.content)).toContain(`recall("${m.tool_call_id}")`);
    // The failure's line stays in front of the model.
    expect(cleared.find((m) => m.tool_call_id === "call_0")?.content).toContain("Error: case 0 failed: expected 3 rows, got 2");
    // The newest results stay whole; the cleared ones come back whole through recall.
    expect(context.getMessages().slice(-2)).toEqual(added.slice(-2));
    const read = await recall.read("call_1");
    expect(read.ok && read.text).toBe(added[4]?.content);
  });

  it("drops whole turns only when clearing cannot reach trimTo, and keeps the task and the newest exchange", () => {
    const context = manager();
    context.addMessage(TASK);
    const trims: TrimEvent<Msg>[] = [];
    context.on("trimmed", (event) => trims.push(event));
    let last: Msg[] = [];
    for (let n = 0; trims.length === 0 && n < 400; n++) {
      last = step(n, 45);
      for (const m of last) context.addMessage(m);
    }
    expect(trims.length).toBe(1);
    const request = context.getContextForRequest() as Msg[];
    expect(request).toContain(TASK);
    for (const m of last) expect(request).toContain(m);
    // Whole units: every call with its result.
    const calls = request.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
    const results = request.flatMap((m) => (m.role === "tool" ? [m.tool_call_id] : []));
    expect(calls).toEqual(results);
  });

  // Over a 300-step session of results of 100 to 1,300 tokens, request by request: the default
  // mode's request holds every tool call a drop-oldest manager's holds (TOKEN_BUDGET, the same
  // window, trimAt and trimTo), and the newest three results whole.
  it("shows, request by request, every turn dropping the oldest shows", () => {
    const smart = manager();
    const oldest = manager(new TokenBudgetStrategy());
    let calls = 0;
    let callsOldest = 0;
    for (const context of [smart, oldest]) context.addMessage(TASK);
    for (let n = 0; n < 300; n++) {
      for (const m of step(n, 8 + ((n * 37) % 90))) {
        smart.addMessage(m);
        oldest.addMessage(m);
      }
      const a = smart.getContextForRequest() as Msg[];
      const b = oldest.getContextForRequest() as Msg[];
      const shown = new Set(a.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)));
      for (const m of b) for (const c of m.tool_calls ?? []) expect(shown.has(c.id), `request ${n}: call ${c.id}`).toBe(true);
      const whole = a.filter((m) => m.role === "tool" && !String(m.content).startsWith("[tool result cleared")).map((m) => m.tool_call_id);
      for (let k = Math.max(0, n - 2); k <= n; k++) expect(whole, `request ${n}`).toContain(`call_${k}`);
      calls += shown.size;
      callsOldest += b.filter((m) => m.tool_calls).length;
    }
    // And more of them: old results cleared, the turns kept (about seven times as many here).
    expect(calls).toBeGreaterThan(callsOldest);
  });
});
