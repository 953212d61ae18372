// Issue 14: summaries that carry the task. The bundled 42-iteration session, as OpenAI chat messages
// and as AI SDK ModelMessages (with reasoning parts), is compacted with the offline extractive
// summarizer at several points; each time the task, every file changed so far, the last error
// still open and the last test outcome must survive, within maxSummaryTokens.
import { describe, expect, it } from "vitest";
import { TiktokenCounter, extractiveSummarizer, type MessageLike } from "ctxwin";
import { ContextCompactor } from "ctxwin/compaction";
import { loadSession, type RecordedCall, type RecordedSession } from "../../../examples/replay.js";

const counter = new TiktokenCounter({ model: "gpt-4o" });
const session = loadSession();
const resultText = (c: RecordedCall) => c.error ?? (typeof c.result === "string" ? c.result : JSON.stringify(c.result));

function openAiMessages(s: RecordedSession, upTo: number): MessageLike[] {
  const out: MessageLike[] = [{ role: "user", content: s.task }];
  for (const step of s.iterations.slice(0, upTo)) {
    out.push({
      role: "assistant",
      content: step.thought,
      tool_calls: step.calls.map((c) => ({
        id: c.toolCallId,
        type: "function",
        function: { name: c.toolName, arguments: JSON.stringify(c.args) },
      })),
    } as MessageLike);
    for (const c of step.calls) out.push({ role: "tool", tool_call_id: c.toolCallId, content: resultText(c) } as MessageLike);
  }
  return out;
}

function aiSdkMessages(s: RecordedSession, upTo: number): MessageLike[] {
  const out: MessageLike[] = [{ role: "user", content: [{ type: "text", text: s.task }] }];
  for (const step of s.iterations.slice(0, upTo)) {
    out.push({
      role: "assistant",
      content: [
        { type: "reasoning", text: `Thinking about iteration ${step.iteration}.` },
        { type: "text", text: step.thought },
        ...step.calls.map((c) => ({ type: "tool-call", toolCallId: c.toolCallId, toolName: c.toolName, input: c.args })),
      ],
    });
    out.push({
      role: "tool",
      content: step.calls.map((c) => ({
        type: "tool-result",
        toolCallId: c.toolCallId,
        toolName: c.toolName,
        output: c.error ? { type: "error-text", value: c.error } : { type: "text", value: resultText(c) },
      })),
    });
  }
  return out;
}

/** What must survive, read from the session itself. */
function facts(s: RecordedSession, upTo: number) {
  const changed = new Set<string>();
  const open = new Map<string, string>(); // tool -> the reason of its last failure
  let lastOpen: string | undefined;
  let lastTests: string | undefined;
  for (const step of s.iterations.slice(0, upTo)) {
    for (const c of step.calls) {
      if (c.toolName === "edit_file") changed.add(c.args.path as string);
      const text = resultText(c);
      const reason = text
        .split("\n")
        .find((line) => /Error:|error TS|ENOENT/.test(line))
        ?.trim();
      if (reason) open.set(c.toolName, reason);
      else open.delete(c.toolName);
      if (c.toolName === "run_tests")
        lastTests =
          text
            .split("\n")
            .find((line) => /^Tests\s/.test(line))
            ?.replace(/\s+/g, " ") ?? reason;
    }
  }
  // The last failure of a tool that has not succeeded since.
  for (const step of s.iterations.slice(0, upTo)) for (const c of step.calls) if (open.has(c.toolName)) lastOpen = open.get(c.toolName);
  return { changed: [...changed], lastOpen, lastTests };
}

describe.each([
  ["OpenAI chat messages", openAiMessages],
  ["AI SDK ModelMessages with reasoning", aiSdkMessages],
])("fact recall after a compaction of the 42-iteration session (%s)", (_name, build) => {
  it.each([10, 14, 22, 25, 27, 36, 42])(
    "after iteration %i: the task, changed files, last open error and last test outcome survive within maxSummaryTokens",
    async (upTo) => {
      const messages = build(session, upTo);
      const compactor = new ContextCompactor({ model: extractiveSummarizer() });
      // Target 0: every message is summarized (a compaction to a target summarizes only the oldest
      // turns it needs), so that the summary alone must carry the facts.
      const result = await compactor.compactWithDetails(messages, 0, counter, { preserveLast: 0 });
      const summary = result.summary!.content;
      const body = summary.slice(summary.indexOf("\n") + 1);
      expect(counter.count(body)).toBeLessThanOrEqual(compactor.maxSummaryTokens);
      // The task: in the summary, and the user's own message kept verbatim beside it.
      expect(summary).toContain(session.task);
      expect(result.messages).toContain(messages[0]);
      const { changed, lastOpen, lastTests } = facts(session, upTo);
      for (const path of changed) expect(summary).toContain(path);
      if (lastOpen) expect(summary).toContain(lastOpen);
      if (lastTests) expect(summary).toContain(lastTests);
      // No bare list of numbers.
      expect(summary).not.toMatch(/figures \d/);
    },
  );

  it("the checks have something to check", () => {
    expect(facts(session, 25)).toMatchObject({ changed: ["src/util/dates.ts"], lastOpen: expect.stringContaining("TS2304") });
    expect(facts(session, 22).lastTests).toBe("Tests 3 failed | 209 passed (212)");
    expect(facts(session, 42)).toMatchObject({ lastOpen: undefined, lastTests: "Tests 0 failed | 212 passed (212)" });
    expect(facts(session, 42).changed).toHaveLength(3);
  });
});
