// A trim that keeps the newest exchange past its target (a large read the model is about to
// answer) still names what it removed while the request has room: its omission marker takes that
// room, up to its share, instead of only what the target left it (nothing there), and an older
// marker's names give way to the exchange instead of the exchange to them. On OpenHands replays
// at 8K the bare "[N messages omitted]" left the open error unnamed in a quarter of the requests
// (bench/trajectories, docs/benchmarks.md).
import { describe, expect, it } from "vitest";
import { MessageContextManager, Recall, TiktokenCounter, TruncationMode, type MessageLike } from "ctxwin";

const counter = new TiktokenCounter({ model: "gpt-4o" });
const quiet = { warn: () => {} };

type Msg = MessageLike & { role: string; content: unknown; tool_call_id?: string; tool_calls?: Array<{ id: string }> };

const TASK = {
  role: "user",
  content: `Fix the importer.\n${Array.from({ length: 125 }, (_, i) => `requirement ${i}: rows keep their order`).join("\n")}`,
} as Msg;

/** A command (long, as an agent's are) and its result of about `lines` x 12 tokens. */
function step(n: number, lines: number, output = "ok"): Msg[] {
  const id = `call_${n}`;
  const command = `cd /workspace/importer_project && python -m pytest tests/unit/test_module_${n}.py -x -q --tb=short -p no:cacheprovider`;
  return [
    {
      role: "assistant",
      content: `Step ${n}.`,
      tool_calls: [{ id, type: "function", function: { name: "bash", arguments: JSON.stringify({ command }) } }],
    } as Msg,
    {
      role: "tool",
      tool_call_id: id,
      content: `${output}\n${Array.from({ length: lines }, (_, k) => `  line ${k} of the output`).join("\n")}`,
    } as Msg,
  ];
}

const markerOf = (request: readonly unknown[]) =>
  (request as Msg[]).find((m) => typeof m.content === "string" && m.content.includes("messages omitted"))?.content as string | undefined;

describe("an omission marker beside a newest exchange kept past the trim's target", () => {
  for (const mode of [TruncationMode.SMART, TruncationMode.SUMMARIZE]) {
    it(`names what went while the request has room (${mode})`, async () => {
      const context = new MessageContextManager<Msg>({ model: "gpt-4o", counter, mode, limits: { maxTokens: 8000 }, logger: quiet });
      const recall = new Recall({ context, maxTokens: 1_000_000 });
      // An agent's long system prompt (OpenHands' is 1,300 tokens) and task: the trims' target is small.
      context.setSystemPrompt(Array.from({ length: 310 }, (_, i) => `rule ${i}: explore before editing`).join("\n"));
      context.addMessage(TASK);
      for (let n = 0; n < 12; n++) for (const m of step(n, 8)) context.addMessage(m);
      // The read the model is about to answer: more than the trim's target beside the task.
      for (const m of step(99, 210)) context.addMessage(m);
      await context.compactIfNeeded();
      const request = context.getContextForRequest();
      expect(counter.countMessages(request as never)).toBeLessThanOrEqual(context.limits.effectiveLimit);
      expect((request as Msg[]).some((m) => m.tool_call_id === "call_99")).toBe(true);
      // The default mode's marker names ids; SUMMARIZE's summary head does (recall by id: ...).
      const text = mode === TruncationMode.SMART ? (markerOf(request) ?? "") : (request as Msg[]).map((m) => String(m.content)).join("\n");
      const named = [
        ...[...text.matchAll(/recall\("([^"]+)"\)/g)].map((m) => m[1] as string),
        ...[...text.matchAll(/recall by id: ([^;)\n]+)/g)].flatMap((m) => (m[1] as string).split(/,\s*/)),
      ];
      expect(named.length).toBeGreaterThan(0);
      const answer = await recall.read(named.at(-1) as string);
      expect(answer.ok).toBe(true);
    });
  }

  it("shrinks an older marker's names when the newest exchange fits only without them", () => {
    const context = new MessageContextManager<Msg>({ model: "gpt-4o", counter, limits: { maxTokens: 8000 }, logger: quiet });
    const limit = context.limits.effectiveLimit;
    context.addMessage(TASK);
    for (let n = 0; n < 30; n++) for (const m of step(n, 8)) context.addMessage(m);
    // A long call (an agent's plan and a patch in one message): its trim keeps only it beside the task, and a marker that names ids.
    const call = {
      role: "assistant",
      content: `Plan:\n${Array.from({ length: 330 }, (_, i) => `- change ${i}: keep the row order`).join("\n")}`,
      tool_calls: [
        { id: "call_big", type: "function", function: { name: "bash", arguments: JSON.stringify({ command: "python apply.py" }) } },
      ],
    } as Msg;
    context.addMessage(call);
    const before = markerOf(context.getContextForRequest());
    expect(before).toMatch(/recall\("/);
    const bare = counter.countMessages([{ role: "system", content: before?.replace(/; recall by id:[\s\S]*\]$/, "]") } as never]);
    const named = counter.countMessages([{ role: "system", content: before } as never]);
    // Its result fits the request only if the marker's names give way.
    const room = limit - context.tokenUsage;
    const size = room + Math.floor((named - bare) / 2);
    const result = { role: "tool", tool_call_id: "call_big", content: " ok".repeat(Math.max(1, size - 8)) } as Msg;
    context.addMessage(result);
    const request = context.getContextForRequest();
    expect(counter.countMessages(request as never)).toBeLessThanOrEqual(limit);
    expect(request).toContainEqual(result);
    expect(request).toContainEqual(call);
    expect(markerOf(request)).toBeDefined();
  });
});
