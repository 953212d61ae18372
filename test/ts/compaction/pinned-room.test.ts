// In the default mode trimAt and trimTo are shares of the room the pinned messages (system prompt,
// system messages, the task) leave, not of the whole window: a large pinned prompt (SWE-agent's
// 4,800-token demonstration) no longer leaves the turns a sliver after each trim, and the default
// mode keeps at least what dropping the oldest turns keeps (bench/trajectories, docs/benchmarks.md).
// The other modes keep shares of the window (compaction/room-share.ts says why).
import { describe, expect, it } from "vitest";
import {
  ContextLimits,
  MessageContextManager,
  TiktokenCounter,
  TruncationMode,
  extractiveSummarizer,
  type CompactionReport,
  type MessageLike,
} from "ctxwin";

const counter = new TiktokenCounter({ model: "gpt-4o" });
const quiet = { warn: () => {} };

type Msg = MessageLike & { role: string; content: unknown; tool_call_id?: string; tool_calls?: Array<{ id: string }> };

const LIMIT = 8000;
// About 4,000 tokens: a demonstration the agent sends with every request.
const DEMO = Array.from({ length: 400 }, (_, i) => `demo line ${i}: open src/${i}.py`).join("\n");
const TASK = { role: "user", content: "Make the CSV importer accept quoted newlines; keep the public API." } as Msg;

/** Step n: a command and its result of about `lines` x 13 tokens. */
function step(n: number, lines: number): Msg[] {
  const id = `call_${n}`;
  const body = Array.from({ length: lines }, () => "  12  tests/test_csv.py::test_quoted_newline PASSED").join("\n");
  return [
    {
      role: "assistant",
      content: `Running check ${n}.`,
      tool_calls: [{ id, type: "function", function: { name: "bash", arguments: JSON.stringify({ command: `pytest -k case${n}` }) } }],
    } as Msg,
    { role: "tool", tool_call_id: id, content: `case ${n}: ok\n${body}` } as Msg,
  ];
}

function manager(mode?: TruncationMode) {
  const context = new MessageContextManager<Msg>({
    model: "gpt-4o",
    counter,
    limits: new ContextLimits({ model: "gpt-4o", maxTokens: LIMIT, maxOutputTokens: 0, reservedTokens: 0 }),
    ...(mode === undefined ? {} : { mode }),
    ...(mode === TruncationMode.SUMMARIZE ? { summarizer: extractiveSummarizer() } : {}),
    logger: quiet,
  });
  context.setSystemPrompt(DEMO);
  context.addMessage(TASK);
  return context;
}

/** Adds steps until the first trim or compaction: the usage just before it and just after. */
function firstTrim(context: MessageContextManager<Msg>): { peak: number; after: number } {
  let peak = 0;
  let after = -1;
  context.on("trimmed", () => {
    if (after < 0) after = context.tokenUsage;
  });
  context.on("compacted", (report: CompactionReport<Msg>) => {
    if (after < 0) after = report.tokensAfter;
  });
  for (let n = 0; after < 0 && n < 200; n++) {
    for (const m of step(n, 20)) {
      if (after < 0) peak = context.tokenUsage;
      context.addMessage(m);
    }
  }
  expect(after).toBeGreaterThanOrEqual(0);
  return { peak, after };
}

describe("trimAt and trimTo with a large pinned prompt", () => {
  const pinned = manager().tokenUsage;
  const room = LIMIT - pinned;

  it("the pinned prompt takes half the window (the premise)", () => {
    expect(pinned).toBeGreaterThan(LIMIT * 0.45);
    expect(pinned).toBeLessThan(LIMIT * 0.6);
  });

  it("the default mode trims first above trimAt of the room left, and down to trimTo of it", () => {
    const { peak, after } = firstTrim(manager());
    // Not at 80% of the window (6,400 tokens, a third of the turns' room still free)...
    expect(peak).toBeGreaterThan(LIMIT * 0.8);
    expect(peak).toBeLessThanOrEqual(pinned + room * 0.8);
    // ...and down to 60% of the room, not of the window (4,800: a few hundred tokens of turns).
    // Old results are cleared first, which may free more than that, but never to the window's 60%.
    expect(after).toBeGreaterThan(LIMIT * 0.6);
    expect(after).toBeLessThanOrEqual(pinned + room * 0.6);
  });

  it("the default mode's compactIfNeeded aims at trimTo of the room left; its threshold stays a share of the window", async () => {
    const context = manager();
    for (let n = 0; n < 6; n++) for (const m of step(n, 40)) context.addMessage(m);
    const target = Math.min(Math.floor(LIMIT * 0.8), Math.floor(pinned + room * 0.6));
    // The preview plans the same target.
    expect((await context.preview({ threshold: 0.8 })).targetTokens).toBe(target);
    expect((await context.compactIfNeeded({ threshold: 0.8 })).targetTokens).toBe(target);
  });

  for (const mode of [TruncationMode.TOKEN_BUDGET, TruncationMode.SLIDING_WINDOW]) {
    it(`${mode} keeps shares of the window`, () => {
      const { peak, after } = firstTrim(manager(mode));
      expect(peak).toBeLessThanOrEqual(LIMIT * 0.8);
      expect(after).toBeLessThanOrEqual(LIMIT * 0.6);
    });
  }

  it("a summarizing compaction keeps shares of the window", async () => {
    const context = manager(TruncationMode.SUMMARIZE);
    for (let n = 0; n < 6; n++) for (const m of step(n, 40)) context.addMessage(m);
    const report = await context.compactIfNeeded({ threshold: 0.8 });
    expect(report.targetTokens).toBe(Math.floor(LIMIT * 0.6));
  });
});
