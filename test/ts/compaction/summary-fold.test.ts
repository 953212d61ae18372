// Folding summaries: every compaction that summarizes leaves one summary, which covers everything
// summarized so far (its count is the sum) and keeps what the agent needs from the first one: the
// task, the files changed, a problem still open. Checked after every request of long sessions
// with both trim settings, with the offline digest and with a scripted model.
import { describe, expect, it } from "vitest";
import {
  ContextLimits,
  MessageContextManager,
  TiktokenCounter,
  TruncationMode,
  extractiveSummarizer,
  type MessageLike,
  type SummaryModel,
} from "ctxwin";
import { ContextCompactor } from "ctxwin/compaction";

const counter = new TiktokenCounter({ model: "gpt-4o" });
const quiet = { warn: () => {} };
const HEAD = /^Summary of the (\d+) earlier messages(?: \([^\n]*\))?:\n/;
const TASK = "Fix the invoice export bug: due dates must use the customer's time zone. Keep the public API.";
const FAILURE = "AssertionError: expected '2024-03-31' to be '2024-04-01'";

/** Turn `i` of a coding session: the user's request, a tool call, its result, the agent's words. */
function turn(i: number, pad = 0): MessageLike[] {
  const id = `call_${i}`;
  const [tool, args, result] =
    i === 0
      ? ["edit_file", { path: "src/util/dates.ts" }, "Edited src/util/dates.ts: parseIsoDate now takes a time zone."]
      : i === 1
        ? [
            "run_tests",
            { command: "npm test" },
            `FAIL test/dates.test.ts > exports due dates in the customer's time zone\n${FAILURE}\n at src/util/dates.ts:41:18\nTests 1 failed | 11 passed (12)`,
          ]
        : i === 2
          ? ["edit_file", { path: "src/export/invoice-exporter.ts" }, "Edited src/export/invoice-exporter.ts: passes the customer's zone."]
          : ["read_file", { path: `src/reports/report-${i}.ts` }, `export const report${i} = ${"1, ".repeat(20 + pad)}0;`];
  return [
    { role: "user", content: i === 0 ? TASK : `Step ${i}: go on.` },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name: tool, arguments: JSON.stringify(args) } }],
    } as MessageLike,
    { role: "tool", tool_call_id: id, content: result } as MessageLike,
    { role: "assistant", content: `I looked at step ${i} and will continue with step ${i + 1} next.${" Noted.".repeat(pad)}` },
  ];
}

const summariesOf = (messages: readonly MessageLike[]) => messages.filter((m) => typeof m.content === "string" && HEAD.test(m.content));

describe("folding summaries", () => {
  const models: Array<[string, () => { llm: SummaryModel; prompts: string[] }]> = [
    ["the extractive digest", () => ({ llm: extractiveSummarizer(), prompts: [] })],
    [
      "a scripted model",
      () => {
        const prompts: string[] = [];
        return { llm: async (prompt: string) => (prompts.push(prompt), `Task: "${TASK}" Summary number ${prompts.length}.`), prompts };
      },
    ],
  ];
  for (const trimTo of [0.6, 0.8]) {
    it.each(models)(`leave at most one summary after every request (trimTo ${trimTo}, %s)`, async (_name, make) => {
      const { llm, prompts } = make();
      const context = new MessageContextManager<MessageLike>({
        model: "gpt-4o",
        counter,
        mode: TruncationMode.SUMMARIZE,
        limits: new ContextLimits({ model: "gpt-4o", maxTokens: 3000, maxOutputTokens: 0, reservedTokens: 0 }),
        logger: quiet,
        compaction: { summarizer: llm, trimAt: 0.8, trimTo, maxSummaryTokens: 200 },
      });
      let summarized = 0;
      let added = 0;
      context.on("compacted", (report) => {
        if (report.summary !== undefined) summarized++;
      });
      for (let i = 0; i < 60; i++) {
        for (const message of turn(i, i % 9)) {
          context.addMessage(message);
          added++;
          await context.compactIfNeeded({ threshold: context.trimAt });
          const messages = context.getMessages();
          const summaries = summariesOf(messages);
          expect(summaries.length).toBeLessThanOrEqual(1);
          // The one summary counts every message summarized so far: with those still here, no more than were added.
          if (summaries.length === 1)
            expect(Number(HEAD.exec(summaries[0]!.content as string)![1]) + messages.length - 1).toBeLessThanOrEqual(added);
        }
      }
      // Several summaries were written, each folding the one before.
      expect(summarized).toBeGreaterThan(3);
      if (prompts.length > 1) {
        for (let k = 1; k < prompts.length; k++) expect(prompts[k]).toContain(`The summary so far, of the messages before these`);
        expect(prompts[prompts.length - 1]).toContain(`Summary number ${prompts.length - 1}.`);
      }
    });
  }

  it("keeps the first summary's task, files changed and open problem through several folds", async () => {
    const compactor = new ContextCompactor({ model: extractiveSummarizer(), keepUserTokens: 0, maxSummaryTokens: 400, logger: quiet });
    let messages: MessageLike[] = [];
    let originals = 0;
    let folds = 0;
    for (let batch = 0; batch < 6; batch++) {
      for (let i = batch * 8; i < batch * 8 + 8; i++) {
        messages.push(...turn(i));
        originals += 4;
      }
      const result = await compactor.compactWithDetails(messages, 600, counter, { preserveLast: 4 });
      messages = result.messages as MessageLike[];
      const summaries = summariesOf(messages);
      expect(summaries).toHaveLength(1);
      const text = summaries[0]!.content as string;
      // Its count is every message summarized so far: the others are still here.
      expect(Number(HEAD.exec(text)![1])).toBe(originals - (messages.length - 1));
      expect(text).toContain(`Task (the user's words): "${TASK}"`);
      expect(text).toMatch(/Files changed: [^\n]*src\/util\/dates\.ts/);
      expect(text).toMatch(/Files changed: [^\n]*src\/export\/invoice-exporter\.ts/);
      expect(text).toContain(FAILURE);
      expect(counter.count(text.slice(HEAD.exec(text)![0].length))).toBeLessThanOrEqual(400);
      if (result.summarized > 0 && batch > 0) folds++;
    }
    expect(folds).toBeGreaterThanOrEqual(4);
  });

  // Without the session's problem record (a compactor used alone), the newer span shows the
  // failure and then the pass; with a manager, its record of the session's problems says so.
  it("moves an open problem the newer span resolves to the resolved ones", async () => {
    const compactor = new ContextCompactor({ model: extractiveSummarizer(), keepUserTokens: 0, logger: quiet });
    let messages: MessageLike[] = [0, 1, 2, 3].flatMap((i) => turn(i, 80));
    messages = (await compactor.compact(messages, 200, counter, { preserveLast: 2 })) as MessageLike[];
    expect(summariesOf(messages)[0]!.content).toMatch(/Open problems, newest first:\n- [^\n]*2024-04-01/);
    const passing: MessageLike[] = [
      ...turn(1, 80).map((m) => JSON.parse(JSON.stringify(m).replaceAll("call_1", "call_again")) as MessageLike),
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_pass", type: "function", function: { name: "run_tests", arguments: '{"command":"npm test"}' } }],
      } as MessageLike,
      {
        role: "tool",
        tool_call_id: "call_pass",
        content: "✓ test/dates.test.ts > exports due dates in the customer's time zone\nTests 12 passed (12)",
      } as MessageLike,
      { role: "assistant", content: "The time zone fix works; next I will update the changelog." },
    ];
    messages = (await compactor.compact([...messages, ...passing, ...turn(4, 80), ...turn(5, 80)], 200, counter, {
      preserveLast: 2,
    })) as MessageLike[];
    const text = summariesOf(messages)[0]!.content as string;
    expect(summariesOf(messages)).toHaveLength(1);
    expect(text).not.toMatch(/Open problems, newest first:/);
    expect(text).toMatch(/Resolved problems, newest first:\n- [^\n]*time zone/);
  });
});
