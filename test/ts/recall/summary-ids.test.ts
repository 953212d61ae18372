// A summary names what recall reads back: every id its head names (the tool results' call ids, the
// other messages' ids) is answered with the original, byte for byte, from the in-memory cache and
// from the session's log, after every compaction of a session that summarizes (and folds) again
// and again.
import { describe, expect, it } from "vitest";
import {
  ContextLimits,
  MemorySessionStore,
  MessageContextManager,
  Recall,
  TruncationMode,
  extractiveSummarizer,
  getCounter,
  type MessageLike,
} from "ctxwin";

type Msg = MessageLike & {
  id?: string;
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
};
const counter = getCounter("gpt-4o");
const quiet = { warn: () => {}, info: () => {}, error: () => {}, debug: () => {} };
const HEAD = /^Summary of the (\d+) earlier messages \(([^\n]*)\):\n/;

/** Turn `i`: a request, a tool call and its result (mixed scripts), the agent's words (some with their own id). */
function turn(i: number): Msg[] {
  return [
    { role: "user", content: `Read part ${i}, please.` },
    {
      role: "assistant",
      content: "",
      tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "read_part", arguments: `{"part":${i}}` } }],
    },
    {
      role: "tool",
      tool_call_id: `call_${i}`,
      content: Array.from({ length: 60 }, (_, n) => `row ${n}: résumé 数据 🙂 ${i * 100 + n}`).join("\n"),
    },
    i % 2 === 0
      ? { role: "assistant", content: `Part ${i} read: 60 rows, nothing wrong. 日本語 ${"ok ".repeat(40)}`, id: `msg_${i}` }
      : { role: "assistant", content: `Part ${i} read: 60 rows, 1 warning. ${"fine ".repeat(40)}` },
  ];
}

/** The ids a summary's head names. */
function namedIds(content: string): string[] {
  const inside = HEAD.exec(content)?.[2] ?? "";
  const list = inside.split("; ").find((part) => part.startsWith("recall by id: "));
  return list === undefined ? [] : list.slice("recall by id: ".length).split(", ");
}

describe("the ids a summary names", () => {
  it("are each answered with the original, byte for byte, from the cache and from the session's log", async () => {
    const store = new MemorySessionStore();
    const context = new MessageContextManager<Msg>({
      model: "gpt-4o",
      mode: TruncationMode.SUMMARIZE,
      limits: new ContextLimits({ model: "gpt-4o", maxTokens: 6000, maxOutputTokens: 0, reservedTokens: 0 }),
      logger: quiet,
      session: { store, id: "s1" },
      compaction: {
        summarizer: extractiveSummarizer(),
        maxToolResultTokens: 100_000,
        keepToolResults: 2,
        preserveLast: 4,
      },
    });
    await context.ready;
    const cached = new Recall({ context, maxTokens: 100_000 });
    const logged = new Recall({ counter, session: { store, id: "s1" }, maxBytes: 0, maxTokens: 100_000 });
    const originals = new Map<string, string>();
    const texts = new Set<string>();
    let checked = 0;
    let summaries = 0;
    for (let i = 0; i < 40; i++) {
      for (const m of turn(i)) {
        if (m.tool_call_id !== undefined) originals.set(m.tool_call_id, m.content as string);
        else if (m.id !== undefined) originals.set(m.id, m.content as string);
        else if (typeof m.content === "string" && m.content !== "") texts.add(m.content);
        context.addMessage(m);
      }
      const report = await context.compactIfNeeded({ threshold: 0.8 });
      if (report.summary === undefined) continue;
      summaries++;
      await context.flush();
      const names = namedIds(report.summary.content);
      expect(names.length).toBeGreaterThan(0);
      expect(names.length).toBeLessThanOrEqual(12);
      for (const id of names) {
        for (const recall of [cached, logged]) {
          const answer = await recall.read(id);
          expect(answer, `${id} from ${recall === cached ? "the cache" : "the session's log"}`).toMatchObject({
            ok: true,
            truncated: false,
          });
          if (!answer.ok) continue;
          // A tool result or a message with its own id: that original; another message: one the session sent.
          if (originals.has(id)) expect(answer.text).toBe(originals.get(id));
          else expect(texts.has(answer.text)).toBe(true);
          checked++;
        }
      }
      // One summary, whose count adds up every message summarized so far.
      expect(context.getMessages().filter((m) => typeof m.content === "string" && HEAD.test(m.content))).toEqual([report.summary]);
    }
    expect(summaries).toBeGreaterThan(3);
    expect(checked).toBeGreaterThan(40);
  });
});
