// What a compaction takes when the window is tight (a large task pinned, a few hundred tokens of
// room): the turns it must take are summarized, not dropped unread, so that a failure among them
// stays in front of the model; and the command run before an agent's long note is cut to fit
// beside the note, naming its recall call, rather than dropped with its output. Synthetic sessions
// of a shell agent (one bash call a turn, mini-swe-agent's `<returncode>` answers).
import { describe, expect, it } from "vitest";
import {
  ContextLimits,
  MessageContextManager,
  Recall,
  TiktokenCounter,
  TruncationMode,
  extractiveSummarizer,
  type MessageLike,
} from "ctxwin";

const counter = new TiktokenCounter({ model: "gpt-4o" });
const quiet = { warn: () => {} };
const WINDOW = 5400;

type Msg = MessageLike & { role: string; content: string | null; tool_call_id?: string; tool_calls?: Array<{ id: string }> };

/** Text of about `tokens` tokens: numbered source lines, as `sed -n` prints them. */
function source(tokens: number, tag: string): string {
  const lines: string[] = [];
  let count = 0;
  for (let i = 1; count < tokens; i++) {
    const line = `${String(i).padStart(4)}\t    ${tag}_value = parse_field(row[${i}], width=${i % 7})`;
    count += counter.count(`${line}\n`);
    lines.push(line);
  }
  return lines.join("\n");
}

function call(id: string, command: string): Msg {
  return {
    role: "assistant",
    content: `THOUGHT: next, \`${command.split("\n")[0]}\`.`,
    tool_calls: [{ id, type: "function", function: { name: "bash", arguments: JSON.stringify({ command }) } }],
  } as Msg;
}

function answer(id: string, code: number, output: string): Msg {
  return { role: "tool", tool_call_id: id, content: `<returncode>${code}</returncode>\n<output>\n${output}\n</output>` } as Msg;
}

function manager(mode: (typeof TruncationMode)[keyof typeof TruncationMode]) {
  return new MessageContextManager<Msg>({
    model: "gpt-4o",
    counter,
    mode,
    compaction: { summarizer: mode === TruncationMode.SUMMARIZE ? extractiveSummarizer() : undefined },
    limits: new ContextLimits({ model: "gpt-4o", maxTokens: WINDOW, maxOutputTokens: 0, reservedTokens: 0 }),
    logger: quiet,
  });
}

const ERROR_LINE = "ValueError: row 3 has 4 fields, expected 3";
const task = { role: "user", content: `Fix the CSV reader: quoted newlines split rows.\n${source(1900, "instructions")}` } as Msg;

/** Reads of the reader, a failing run of the reproduction script, then more reads: 12 messages after the task. */
function failingSession(): Msg[] {
  const failing = [
    "Traceback (most recent call last):",
    '  File "/testbed/reproduce.py", line 4, in <module>',
    "    rows = read_csv(path)",
    ERROR_LINE,
  ].join("\n");
  return [
    task,
    call("call_0", "sed -n '1,40p' csv/reader.py"),
    answer("call_0", 0, source(400, "head")),
    call("call_1", "python reproduce.py"),
    answer("call_1", 1, `${source(250, "log")}\n${failing}`),
    call("call_2", "sed -n '40,80p' csv/reader.py"),
    answer("call_2", 0, source(450, "middle")),
    call("call_3", "grep -n 'def parse_field' csv/*.py"),
    answer("call_3", 0, source(400, "grep")),
    call("call_4", "sed -n '80,120p' csv/reader.py"),
    answer("call_4", 0, source(450, "tail")),
    call("call_5", "sed -n '120,160p' csv/reader.py"),
    answer("call_5", 0, source(300, "end")),
  ];
}

function text(request: readonly unknown[]): string {
  return request.map((m) => String((m as Msg).content ?? "")).join("\n");
}

function resultIds(request: readonly unknown[]): string[] {
  return request.flatMap((m) => ((m as Msg).role === "tool" ? [String((m as Msg).tool_call_id)] : []));
}

describe("a compaction on a tight window", () => {
  it("summarizes the turns its target needs, within the last preserveLast too, so a failure among them stays in front of the model", async () => {
    const context = manager(TruncationMode.SUMMARIZE);
    for (const message of failingSession()) {
      context.addMessage(message);
      await context.compactIfNeeded();
    }
    const request = context.getContextForRequest();
    // The failing run went (the room left beside the task is a few hundred tokens) ...
    expect(resultIds(request)).not.toContain("call_1");
    // ... into a summary (12 messages after the task: all but two within the last preserveLast 10),
    // whose open problems quote the error line.
    const summary = request.find((m) => String((m as Msg).content).startsWith("Summary of the"));
    expect(summary).toBeDefined();
    expect(String((summary as Msg).content)).toContain("Open problems");
    expect(text(request)).toContain(ERROR_LINE);
    // The newest exchange and the task stay, and the request fits.
    expect(resultIds(request)).toContain("call_5");
    expect(request).toContain(task);
    expect(counter.countMessages(request as MessageLike[])).toBeLessThanOrEqual(WINDOW);
  });

  it("still keeps the last preserveLast messages out of the summary when the target is reached without them", async () => {
    const context = manager(TruncationMode.SUMMARIZE);
    // A short task: the target leaves room for the recent turns.
    context.addMessage({ role: "user", content: "Fix the CSV reader: quoted newlines split rows." } as Msg);
    const steps: Msg[] = [];
    // Long thoughts, short outputs: clearing old results frees little, a summary is needed.
    for (let step = 0; step < 14; step++) {
      steps.push({
        ...call(`call_${step}`, `sed -i 's/a${step}/b${step}/' csv/reader.py`),
        content: `THOUGHT: ${source(300, `plan${step}`)}`,
      });
      steps.push(answer(`call_${step}`, 0, ""));
    }
    for (const message of steps) {
      context.addMessage(message);
      await context.compactIfNeeded();
    }
    const history = context.getMessages() as Msg[];
    expect(history.some((m) => String(m.content).startsWith("Summary of the"))).toBe(true);
    // Each of the last 10 messages is still a message of its own (level 2 may have cleared an
    // older result to its placeholder), not a line of the summary.
    const at = (message: Msg) =>
      history.findIndex((m) =>
        message.role === "tool" ? m.tool_call_id === message.tool_call_id : m.tool_calls?.[0]?.id === message.tool_calls?.[0]?.id,
      );
    for (const message of steps.slice(-10)) expect(at(message)).toBeGreaterThanOrEqual(0);
  });
});

describe("the command before a long note", () => {
  it("is cut to fit beside the note, naming its recall call, rather than dropped; recall reads it back whole", async () => {
    for (const mode of [TruncationMode.SMART, TruncationMode.SUMMARIZE]) {
      const context = manager(mode);
      const recall = new Recall({ context, maxTokens: 4000 });
      const output = `FAILED tests/test_reader.py::test_quoted_newline - AssertionError\n${source(800, "pytest")}`;
      const session: Msg[] = [
        { role: "user", content: `Fix the CSV reader: quoted newlines split rows.\n${source(2000, "instructions")}` } as Msg,
        call("call_0", "sed -n '1,40p' csv/reader.py"),
        answer("call_0", 0, source(300, "head")),
        call("call_1", "sed -n '40,80p' csv/reader.py"),
        answer("call_1", 0, source(300, "middle")),
        call("call_run", "pytest tests/test_reader.py"),
        answer("call_run", 1, output),
        // A note without a command (no tool call), as long as a file the agent quotes in full.
        { role: "assistant", content: `THOUGHT: the test fails; the reader as it should be:\n${source(2700, "draft")}` } as Msg,
      ];
      for (const message of session) {
        context.addMessage(message);
        await context.compactIfNeeded();
      }
      // Beside the note there is no room for the command's whole output: it is cut, not dropped.
      const beside = context.getContextForRequest() as Msg[];
      const cut = beside.find((m) => m.tool_call_id === "call_run");
      expect(cut, `${mode}: the command run last stays beside the note`).toBeDefined();
      expect(String(cut?.content)).toContain('recall("call_run")');
      expect(String(cut?.content)).toContain("FAILED tests/test_reader.py::test_quoted_newline");
      expect(counter.countMessages(beside as MessageLike[])).toBeLessThanOrEqual(WINDOW);
      // The framework's correction comes next: the note gives way, the command stays.
      context.addMessage({ role: "user", content: "Please always provide EXACTLY ONE action in triple backticks." } as Msg);
      await context.compactIfNeeded();
      const request = context.getContextForRequest() as Msg[];
      expect(resultIds(request), mode).toContain("call_run");
      expect(request.some((m) => m.tool_calls?.[0]?.id === "call_run")).toBe(true);
      expect(counter.countMessages(request as MessageLike[])).toBeLessThanOrEqual(WINDOW);
      const read = await recall.read("call_run");
      expect(read.ok && read.text, mode).toBe((session[6] as Msg).content);
    }
  });
});
