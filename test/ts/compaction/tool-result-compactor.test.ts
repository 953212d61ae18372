// Tool result compaction, through the public API.
import { describe, expect, it } from "vitest";
import { TiktokenCounter, ToolResultCompactor, getCounter } from "ctxwin";
import { ApproximateCounter } from "ctxwin/tokens";

const counter = new TiktokenCounter({ model: "gpt-4o" });
const log = Array.from({ length: 3000 }, (_, i) =>
  i === 1700
    ? "FAILED test/dates.test.ts > keeps the day: expected '2024-03-31' to be '2024-04-01'"
    : `ok ${i} test/case_${i}.test.ts (${i % 17}ms)`,
).join("\n");

describe("ToolResultCompactor", () => {
  it("cuts a 5000-token result to at most 1000 tokens and says what was removed", () => {
    const big = log.slice(0, 25000);
    expect(counter.count(big)).toBeGreaterThan(5000);
    const compactor = new ToolResultCompactor({ maxResultTokens: 1000 });
    const out = compactor.compact(big, counter);
    expect(out.changed).toBe(true);
    expect(counter.count(out.text)).toBeLessThanOrEqual(1000);
    expect(counter.count(out.text)).toBeGreaterThan(800); // ~1000, not far less
    expect(out.text).toMatch(/\[Output truncated\.\.\.\] \(\d+ lines, about \d+ tokens removed\)/);
    expect(out.text.startsWith("ok 0 test/case_0.test.ts")).toBe(true);
  });

  it("names the recall call of each cut result with nameRecall, within the same bound", () => {
    const compactor = new ToolResultCompactor({ maxResultTokens: 300 });
    const message = { role: "tool", tool_call_id: "call_7", content: log };
    const out = compactor.compactMessage(message, counter, { nameRecall: true });
    expect(out.content).toMatch(/\[Output truncated\.\.\.; recall\("call_7"\)\] \(\d+ lines, about \d+ tokens removed\)/);
    expect(counter.count(out.content)).toBeLessThanOrEqual(300);
    // AI SDK parts: each cut names its own call.
    const parts = {
      role: "tool",
      content: ["a", "b"].map((k) => ({
        type: "tool-result",
        toolCallId: `call_${k}`,
        toolName: "t",
        output: { type: "text", value: log },
      })),
    };
    const cut = compactor.compactMessage(parts, counter, { nameRecall: true }).content.map((p) => p.output.value);
    expect(cut[0]).toContain('recall("call_a")');
    expect(cut[1]).toContain('recall("call_b")');
    // A notice of the caller's own that does not end in "]" gets the call after it; without nameRecall nothing is added.
    expect(
      new ToolResultCompactor({ maxResultTokens: 300, truncationMessage: "<cut>" }).compactMessage(message, counter, { nameRecall: true })
        .content,
    ).toContain('<cut> recall("call_7")');
    expect(compactor.compactMessage(message, counter).content).not.toContain("recall(");
    expect(() => compactor.compactMessage(message, counter, { nameRecall: "yes" as unknown as boolean })).toThrow(
      expect.objectContaining({
        name: "TypeError",
        code: "ERR_CTXWIN_INVALID_ARGUMENT",
        message: expect.stringContaining("options.nameRecall"),
      }),
    );
  });

  it("keeps error lines from the middle", () => {
    const out = new ToolResultCompactor({ maxResultTokens: 300 }).compactResult(log, counter);
    expect(out).toContain("FAILED test/dates.test.ts > keeps the day: expected '2024-03-31' to be '2024-04-01'");
  });

  it("returns a 500-token result unchanged under a 1000-token bound", () => {
    const small = log.slice(0, 2000);
    expect(counter.count(small)).toBeLessThan(1000);
    expect(new ToolResultCompactor({ maxResultTokens: 1000 }).compactResult(small, counter)).toBe(small);
  });

  it("keeps JSON valid JSON, eliding inside it", () => {
    const rows = Array.from({ length: 4000 }, (_, i) => ({ id: i, path: `src/file_${i}.ts`, size: i * 3 }));
    const out = new ToolResultCompactor({ maxResultTokens: 500 }).compact({ files: rows, total: 4000 }, counter);
    expect(out.json).toBe(true);
    const parsed = JSON.parse(out.text) as { files: unknown[]; total: number };
    expect(parsed.total).toBe(4000);
    expect(parsed.files[0]).toEqual(rows[0]);
    expect(parsed.files.at(-1)).toEqual(rows.at(-1));
    expect(counter.count(out.text)).toBeLessThanOrEqual(500);
  });

  it("honours the bound with any counter (an approximation checks the cut)", () => {
    const approx = new ApproximateCounter({ charsPerToken: 4 });
    const out = new ToolResultCompactor({ maxResultTokens: 400 }).compactResult(log, approx);
    expect(approx.count(out)).toBeLessThanOrEqual(400);
    const cached = getCounter("gpt-4o");
    expect(cached.count(new ToolResultCompactor({ maxResultTokens: 400 }).compactResult(log, cached))).toBeLessThanOrEqual(400);
  });

  it("compacts a tool message's content and keeps every other field, in all three shapes", () => {
    const compactor = new ToolResultCompactor({ maxResultTokens: 200 });
    const openai = { role: "tool", tool_call_id: "call_1", name: "run_tests", content: log };
    const a = compactor.compactMessage(openai, counter);
    expect(a).not.toBe(openai);
    expect(openai.content).toBe(log); // the caller's message is untouched
    expect({ ...a, content: undefined }).toEqual({ ...openai, content: undefined });
    expect(counter.count(a.content)).toBeLessThanOrEqual(200);

    const aiSdk = {
      role: "tool",
      content: [{ type: "tool-result", toolCallId: "c1", toolName: "run_tests", output: { type: "text", value: log } }],
    };
    const b = compactor.compactMessage(aiSdk, counter);
    const part = (b.content as Array<{ output: { value: string }; toolCallId: string }>)[0]!;
    expect(part.toolCallId).toBe("c1");
    expect(counter.count(part.output.value)).toBeLessThanOrEqual(200);

    const anthropic = { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: log }] };
    const c = compactor.compactMessage(anthropic, counter);
    expect(counter.count((c.content as Array<{ content: string }>)[0]!.content)).toBeLessThanOrEqual(200);
  });

  it("rejects bad options", () => {
    expect(() => new ToolResultCompactor({ maxResultTokens: 0 })).toThrow(RangeError);
    expect(() => new ToolResultCompactor({ maxResultTokens: 1.5 })).toThrow(RangeError);
    expect(() => new ToolResultCompactor({ truncationMessage: 5 as never })).toThrow(TypeError);
    expect(() => new ToolResultCompactor({ maxResultTokens: 2 }).compactResult(log, counter)).toThrow(/cannot hold the truncation message/);
  });
});
