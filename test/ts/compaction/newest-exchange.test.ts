// The exchange the model is about to answer (DESIGN.md invariant 13): the assistant's newest tool
// call with its result stays in the request while the request fits with it, through every level,
// trim and strategy; when even the pinned messages, the summary and it do not fit, its result is
// cut, naming its recall call, and never dropped.
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
import { SelectiveTruncationStrategy, TokenBudgetStrategy } from "ctxwin/truncation";

const counter = new TiktokenCounter({ model: "gpt-4o" });
const quiet = { warn: () => {} };

/** Text of about `tokens` tokens that reads like a tool's output (numbered source lines). */
function output(tokens: number, tag: string): string {
  const lines: string[] = [];
  let count = 0;
  for (let i = 1; count < tokens; i++) {
    const line = `${String(i).padStart(4)}  ${tag}: assert parse_row(rows[${i}]) == expected[${i}]`;
    count += counter.count(`${line}\n`);
    lines.push(line);
  }
  return lines.join("\n");
}

type Msg = MessageLike & { role: string; tool_call_id?: string; tool_calls?: Array<{ id: string }> };

function call(id: string, command: string): Msg {
  return {
    role: "assistant",
    content: `Next: ${command}`,
    tool_calls: [{ id, type: "function", function: { name: "bash", arguments: JSON.stringify({ command }) } }],
  } as Msg;
}

function result(id: string, text: string): Msg {
  return { role: "tool", tool_call_id: id, content: text } as Msg;
}

function ids(request: readonly unknown[]): string[] {
  return request.flatMap((m) => {
    const message = m as Msg;
    return message.role === "tool" && message.tool_call_id !== undefined ? [message.tool_call_id] : [];
  });
}

/**
 * The issue's session: a 5,400-token window, a task of about 1,700 tokens (the agent's
 * instructions in the first user message), nine steps of 150 to 600 tokens, then a command whose
 * 1,100-token result brings usage near the window.
 */
function issueSession(): Msg[] {
  const messages: Msg[] = [
    { role: "user", content: `Task: make the CSV importer accept quoted newlines.\n${output(1700, "instructions")}` } as Msg,
  ];
  const sizes = [300, 450, 150, 600, 250, 500, 350, 200, 400];
  sizes.forEach((size, step) => {
    messages.push(call(`call_${step}`, `pytest tests/test_csv.py -k case${step}`));
    messages.push(result(`call_${step}`, output(size, `case${step}`)));
  });
  messages.push(call("call_new", "pytest tests/test_csv.py"));
  messages.push(result("call_new", `FAILED tests/test_csv.py::test_quoted_newline - AssertionError\n${output(1100, "newest")}`));
  return messages;
}

function manager(mode: (typeof TruncationMode)[keyof typeof TruncationMode], maxTokens = 5400) {
  return new MessageContextManager<Msg>({
    model: "gpt-4o",
    counter,
    mode,
    compaction: { summarizer: mode === TruncationMode.SUMMARIZE ? extractiveSummarizer() : undefined },
    limits: new ContextLimits({ model: "gpt-4o", maxTokens, maxOutputTokens: 0, reservedTokens: 0 }),
    logger: quiet,
  });
}

/**
 * The issue's request: the agent's instructions in the first user message (about 1,900 tokens),
 * six short steps, four of 300 to 350 tokens, and the command just run, whose 950-token result
 * brings usage to about 5,300 of a 5,400-token window.
 */
function issueRequest(): Msg[] {
  const messages: Msg[] = [
    { role: "user", content: `Task: make the CSV importer accept quoted newlines.\n${output(1900, "instructions")}` } as Msg,
  ];
  for (let step = 0; step < 6; step++) {
    messages.push(call(`call_s${step}`, `sed -n '${step * 20},${step * 20 + 20}p' csv/reader.py`));
    messages.push(result(`call_s${step}`, output(60, `reader${step}`)));
  }
  [300, 350, 300, 300].forEach((size, step) => {
    messages.push(call(`call_${step}`, `pytest tests/test_csv.py -k case${step}`));
    messages.push(result(`call_${step}`, output(size, `case${step}`)));
  });
  messages.push(call("call_new", "pytest tests/test_csv.py"));
  messages.push(result("call_new", `FAILED tests/test_csv.py::test_quoted_newline - AssertionError\n${output(950, "newest")}`));
  return messages;
}

describe("the newest exchange", () => {
  // The issue's case: levels 2 and 3 bring usage under the window but not to trimTo (3,240), and
  // level 4, trimming to trimTo with the pinned task and the summary taking most of it, removed
  // every remaining message, the new exchange included: the request was system + task + summary.
  it("stays in the request after a compaction whose target it cannot fit (the issue's case)", async () => {
    const context = manager(TruncationMode.SUMMARIZE);
    const messages = issueRequest();
    context.load(messages);
    const report = await context.compactIfNeeded();
    expect(report.tokensBefore).toBeGreaterThan(5000);
    expect(report.summary).toBeDefined();
    const request = context.getContextForRequest();
    // Whole: the caller's own message, not a cut copy.
    expect(ids(request)).toContain("call_new");
    expect(request).toContain(messages[messages.length - 1]);
    expect(counter.countMessages(request as MessageLike[])).toBeLessThanOrEqual(5400);
    expect(JSON.stringify(request)).toContain("Task: make the CSV importer");
  });

  it("stays through a replayed session's compactions (SUMMARIZE)", async () => {
    const context = manager(TruncationMode.SUMMARIZE);
    for (const m of issueSession()) {
      context.addMessage(m);
      await context.compactIfNeeded();
    }
    const request = context.getContextForRequest();
    expect(ids(request)).toContain("call_new");
    expect(counter.countMessages(request as MessageLike[])).toBeLessThanOrEqual(5400);
    expect(JSON.stringify(request)).toContain("Task: make the CSV importer");
  });

  it("stays through every mode's automatic trims and truncate()", async () => {
    for (const mode of Object.values(TruncationMode)) {
      const context = manager(mode);
      for (const m of issueSession()) {
        context.addMessage(m);
        if (mode === TruncationMode.SUMMARIZE) await context.compactIfNeeded();
      }
      expect(ids(context.getContextForRequest()), mode).toContain("call_new");
      context.truncate();
      expect(ids(context.getContextForRequest()), `${mode} truncate()`).toContain("call_new");
      expect(context.tokenUsage).toBeLessThanOrEqual(5400);
    }
  });

  it("is cut, naming its recall call, when even the pinned task and it do not fit, and recall reads it back whole", async () => {
    // A 2,400-token window: the task (1,700) and the 1,100-token result cannot both be whole.
    const context = manager(TruncationMode.TOKEN_BUDGET, 2400);
    const recall = new Recall({ context, maxTokens: 4000 });
    // The trim says what it cut, beside what it removed: what a recall keeps the originals of.
    context.on("trimmed", (event) => recall.remember(event));
    const session = issueSession();
    for (const m of session) context.addMessage(m);
    const request = context.getContextForRequest() as Msg[];
    const newest = request.find((m) => m.tool_call_id === "call_new");
    expect(newest, "the newest result is cut, not dropped").toBeDefined();
    expect(String(newest?.content)).toContain('recall("call_new")');
    expect(String(newest?.content)).toContain("FAILED tests/test_csv.py::test_quoted_newline");
    expect(request.some((m) => m.tool_calls?.[0]?.id === "call_new")).toBe(true);
    expect(counter.countMessages(request)).toBeLessThanOrEqual(2400);
    const original = session[session.length - 1] as Msg;
    const read = await recall.read("call_new");
    expect(read.ok && read.text).toBe(original.content);
  });

  // A command of thousands of tokens (a file written through a heredoc) has no result to cut: the
  // summary a compaction wrote gives way to it, as an older turn would.
  it("takes the room of a summary when a call too large for any cut needs it", async () => {
    const context = manager(TruncationMode.SUMMARIZE);
    const messages = issueRequest();
    context.load(messages);
    await context.compactIfNeeded();
    const summary = context.getMessages().find((m) => String(m.content).startsWith("Summary of the"));
    expect(summary).toBeDefined();
    const frame = counter.countMessages([]);
    const summaryTokens = counter.countMessages([summary as Msg]) - frame;
    const taskTokens = counter.countMessages([messages[0] as Msg]) - frame;
    // Room for the task and the call (and the marker naming what gave way), not for the summary besides.
    const wanted = 5400 - frame - taskTokens - Math.floor(summaryTokens / 2) - 20;
    const writing = (tokens: number) =>
      ({
        role: "assistant",
        content: "Writing the reader.",
        tool_calls: [
          {
            id: "call_write",
            type: "function",
            function: {
              name: "bash",
              arguments: JSON.stringify({ command: `cat > csv/reader.py <<'EOF'\n${output(tokens, "reader")}\nEOF` }),
            },
          },
        ],
      }) as Msg;
    const measured = counter.countMessages([writing(wanted)]) - frame;
    const write = writing(Math.floor((wanted * wanted) / measured) - 20);
    const writeTokens = counter.countMessages([write]) - frame;
    expect(taskTokens + writeTokens + 40).toBeLessThan(5400 - frame);
    expect(taskTokens + summaryTokens + writeTokens).toBeGreaterThan(5400 - frame);
    context.addMessage(write);
    context.addMessage(result("call_write", "<returncode>0</returncode>"));
    const request = context.getContextForRequest() as Msg[];
    expect(request).toContain(write);
    expect(ids(request)).toContain("call_write");
    expect(request).toContain(messages[0]);
    expect(counter.countMessages(request)).toBeLessThanOrEqual(5400);
  });

  // The trajectory bench's pytest-7490 at 8K: the system prompt and the task take 5,379 of the 5,400
  // tokens, and mini-swe-agent's last correction (a user message of about 100 tokens) made every
  // request after it overflow, although dropping the oldest turns makes a valid one.
  it("gives way in the last user message when even the pinned messages exceed the window", async () => {
    const words = (tokens: number) => {
      let t = "";
      for (let i = 0; counter.count(t) < tokens; i++) t += ` w${i % 97}`;
      return t;
    };
    const context = new MessageContextManager<Msg>({ model: "gpt-4o", counter, limits: { maxTokens: 8000 }, logger: quiet });
    context.setSystemPrompt(words(105));
    const task = { role: "user", content: words(5262) } as Msg;
    context.addMessage(task);
    for (let i = 0; i < 3; i++) {
      context.addMessage({ role: "assistant", content: words(60) } as Msg);
      context.addMessage({ role: "user", content: `Please always provide EXACTLY ONE action in triple backticks.${words(96)}` } as Msg);
    }
    await context.compactIfNeeded();
    const request = context.getContextForRequest() as Msg[];
    expect(counter.countMessages(request)).toBeLessThanOrEqual(context.limits.effectiveLimit);
    expect(request).toContain(task);
    // A user message pinned through the API does not give way: the overflow error says so.
    const pinned = new MessageContextManager<Msg>({ model: "gpt-4o", counter, limits: { maxTokens: 8000 }, logger: quiet });
    pinned.setSystemPrompt(words(105));
    pinned.addMessage(task);
    pinned.addMessage({ role: "assistant", content: words(60) } as Msg);
    pinned.addMessage({ role: "user", content: words(96), _preserve: true } as Msg);
    expect(() => pinned.getContextForRequest()).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_CONTEXT_OVERFLOW" }));
  });

  it("is kept by the strategies themselves while it fits their target", () => {
    // The agent's notes between steps: plain messages, which Selective drops only after tool results.
    const session = issueSession().flatMap((m) =>
      m.role === "tool" && m.tool_call_id !== "call_new" ? [m, { role: "assistant", content: `Checked ${m.tool_call_id}.` } as Msg] : [m],
    );
    const total = counter.countMessages(session);
    const newest = counter.countMessages(session.slice(-2)) - counter.countMessages([]);
    const task = counter.countMessages(session.slice(0, 1)) - counter.countMessages([]);
    // Selective drops tool results first: the newest went before any plain message did.
    const selective = new SelectiveTruncationStrategy({ preserveRoles: ["system", "user"] });
    const target = task + newest + 20;
    expect(target).toBeLessThan(total);
    const kept = selective.truncate(session, target, counter) as Msg[];
    expect(ids(kept)).toEqual(["call_new"]);
    // keepNewestExchange: false gives the former plan.
    const former = new SelectiveTruncationStrategy({ preserveRoles: ["system", "user"], keepNewestExchange: false }).truncate(
      session,
      target,
      counter,
    ) as Msg[];
    expect(ids(former)).not.toContain("call_new");
    // Drop-oldest keeps it while it fits; past that, the pinned messages alone (a plain
    // strategy cannot cut text: a manager does).
    expect(ids(new TokenBudgetStrategy().truncate(session, target, counter) as Msg[])).toContain("call_new");
    expect(ids(new TokenBudgetStrategy().truncate(session, task + 50, counter) as Msg[])).toEqual([]);
  });
});
