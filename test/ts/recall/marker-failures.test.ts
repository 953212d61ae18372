// An omission marker names the failures still open among the messages it stands for, whatever
// their age: a command whose error the agent has not fixed yet is what it needs back first, and a
// marker that names only the newest dozen entries lost it on real runs (bench/trajectories: the
// open error line of a run trimmed while its summary was being written).
import { describe, expect, it } from "vitest";
import { ContextLimits, MessageContextManager, Recall, TruncationMode, type MessageLike } from "ctxwin";

type Msg = MessageLike & {
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
};
const quiet = { warn: () => {}, info: () => {}, error: () => {}, debug: () => {} };

/** A shell command and its mini-swe-agent-shaped result. */
function run(id: string, command: string, returncode: number, output: string): Msg[] {
  return [
    {
      role: "assistant",
      content: `THOUGHT: running ${id}`,
      tool_calls: [{ id, type: "function", function: { name: "bash", arguments: JSON.stringify({ command }) } }],
    },
    { role: "tool", tool_call_id: id, content: `<returncode>${returncode}</returncode>\n<output>\n${output}\n</output>` },
  ];
}

const listing = (n: number) =>
  Array.from({ length: 40 }, (_, k) => `${String(k + n).padStart(4)}    value_${k} = compute(${k})`).join("\n");

/** A session: a look around, an early failing script, later reads (and, with `fixed`, the script passing among them). */
function session(fixed: boolean): Msg[] {
  const messages: Msg[] = [{ role: "user", content: "Make reproduce.py run clean." } as Msg];
  // The first turns stay beside the task in the default mode: the failure comes after them.
  for (let i = 0; i < 3; i++) messages.push(...run(`call_look_${i}`, `ls src/${i}`, 0, `module_${i}.py`));
  messages.push(
    ...run(
      "call_fail",
      "python reproduce.py",
      1,
      "Traceback (most recent call last):\n  File \"reproduce.py\", line 3, in <module>\nKeyError: 'tz'",
    ),
  );
  for (let i = 0; i < 30; i++) {
    messages.push(...run(`call_read_${i}`, `sed -n '${i * 40},${i * 40 + 40}p' src/module.py`, 0, listing(i * 40)));
    if (fixed && i === 10) messages.push(...run("call_pass", "python reproduce.py", 0, "all good"));
  }
  return messages;
}

const marker = (context: MessageContextManager<Msg>) =>
  context.getContextForRequest().find((m) => typeof m.content === "string" && m.content.includes("messages omitted"))?.content as string;

describe("an omission marker and the open failures it stands for", () => {
  for (const mode of [TruncationMode.SMART, TruncationMode.SUMMARIZE]) {
    it(`names an old failure still open, marked, and recall reads it back (${mode})`, async () => {
      const context = new MessageContextManager<Msg>({
        model: "gpt-4o",
        mode,
        limits: new ContextLimits({ model: "gpt-4o", maxTokens: 200_000, maxOutputTokens: 0, reservedTokens: 0 }),
        logger: quiet,
      });
      const recall = new Recall({ context, maxTokens: 10_000_000 });
      const messages = session(false);
      context.load(messages);
      const event = context.truncate(2_000);
      expect(event?.removed.length).toBeGreaterThan(40);
      const text = marker(context);
      // Thirty reads are newer than the failure: without its place among the names it would be one of the unnamed.
      expect(text).toContain('recall("call_fail"): bash python reproduce.py (failed)');
      const answer = await recall.read("call_fail");
      expect(answer.ok && answer.text).toBe((messages[8] as Msg).content);
    });
  }

  it("does not mark a failure a later run of the same command closed", () => {
    const context = new MessageContextManager<Msg>({
      model: "gpt-4o",
      mode: TruncationMode.SMART,
      limits: new ContextLimits({ model: "gpt-4o", maxTokens: 200_000, maxOutputTokens: 0, reservedTokens: 0 }),
      logger: quiet,
    });
    context.load(session(true));
    context.truncate(2_000);
    const text = marker(context);
    expect(text).toContain("messages omitted");
    expect(text).not.toContain("(failed)");
  });

  /** The manager with its history loaded, trimmed once: the failure went, and a few reads after it. */
  function trimmedOnce(messages: Msg[]) {
    const context = new MessageContextManager<Msg>({
      model: "gpt-4o",
      mode: TruncationMode.SMART,
      limits: new ContextLimits({ model: "gpt-4o", maxTokens: 200_000, maxOutputTokens: 0, reservedTokens: 0 }),
      logger: quiet,
    });
    context.load(messages);
    context.truncate(context.tokenUsage - 1_500);
    const request = context.getContextForRequest();
    const ids = request.map((m) => (m as Msg).tool_call_id);
    expect(ids).not.toContain("call_fail");
    expect(ids).toContain("call_read_8");
    return context;
  }

  it("keeps naming the failure when later trims add to the marker", () => {
    const context = trimmedOnce(session(false));
    expect(marker(context)).toContain("(failed)");
    // A second trim takes a dozen more reads: the marker's few names are the newest, and the failure among them.
    context.truncate(1_500);
    const text = marker(context);
    expect(text).toMatch(/and \d+ earlier not named|earlier not named/);
    expect(text).toContain('recall("call_fail"): bash python reproduce.py (failed)');
  });

  it("stops marking it once a later trim takes a run of the same command", () => {
    const context = trimmedOnce(session(true));
    expect(marker(context)).toContain("(failed)");
    context.truncate(1_500);
    expect(marker(context)).not.toContain("(failed)");
  });
});
