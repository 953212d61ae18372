// The cases a user hit when trying compaction, each as a test through the public API: compaction
// that went far below its target, an error line lost to clearing, a task bigger than the window
// sent anyway, and an import that asked for a model it did not need.
import { mkdtempSync, readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { ContextLimits, MessageContextManager, TiktokenCounter, TruncationMode, type MessageLike } from "ctxwin";
import { runCli } from "ctxwin/cli";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCtxwin } from "../support/cli.js";

const counter = new TiktokenCounter({ model: "gpt-4o" });
const quiet = { warn: () => {} };
const BILLING = new URL("../../../examples/data/billing-request.json", import.meta.url);

async function compact(target: number): Promise<{
  report: { tokensAfter: number; messagesBefore: number; messagesAfter: number; levels: Array<{ level: number; applied: boolean }> };
  messages: string;
}> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on("data", (c: Buffer) => chunks.push(c));
  const out = `${process.env.TMPDIR ?? "/tmp"}/ctxwin-compact-${process.pid}-${target}.json`;
  const code = await runCli(["compact", BILLING.pathname, "--target", String(target), "--json", "-o", out], {
    stdout,
    stderr,
    stdin: new PassThrough(),
    env: {},
  });
  expect(code).toBe(0);
  return { report: JSON.parse(Buffer.concat(chunks).toString("utf8")), messages: readFileSync(out, "utf8") };
}

describe("the observed cases", () => {
  it("ctxwin compact on the 69-message tool session lands just under each target, and runs no level it does not need", async () => {
    const five = await compact(5000);
    expect(five.report.tokensAfter).toBeLessThanOrEqual(5000);
    expect(five.report.tokensAfter).toBeGreaterThan(4000);
    expect(five.report.messagesAfter).toBe(69);
    expect(five.report.levels.filter((l) => l.applied).map((l) => l.level)).toEqual([1, 2]);
    for (const target of [40000, 20000]) {
      const { report } = await compact(target);
      expect(report.tokensAfter).toBeLessThanOrEqual(target);
      expect(report.tokensAfter).toBeGreaterThan(target * 0.85);
    }
  });

  it("keeps `Error: duplicate charge detected for ch_17_5` at every target", async () => {
    for (const target of [40000, 20000, 5000, 3000]) {
      const { messages } = await compact(target);
      expect(messages, `target ${target}`).toContain("duplicate charge detected for ch_17_5");
    }
  });

  it("throws ERR_CTXWIN_CONTEXT_OVERFLOW with the figures for a task bigger than the window, unless told to send it", () => {
    const task = `Migrate these records:\n${"record 1042, status open, owner ana;\n".repeat(2600)}`;
    const make = (onOverflow?: "error" | "send") =>
      new MessageContextManager<MessageLike>({
        model: "gpt-4o",
        counter,
        limits: new ContextLimits({ model: "gpt-4o", maxTokens: 16000, maxOutputTokens: 0, reservedTokens: 0 }),
        logger: quiet,
        warnings: { onOverflow },
      });
    const context = make();
    context.addMessage({ role: "user", content: task, _preserve: true } as MessageLike);
    expect(context.tokenUsage).toBeGreaterThan(16000);
    let error: (RangeError & { code?: string; tokens?: number; limit?: number; pinnedTokens?: number }) | undefined;
    try {
      context.getContextForRequest();
    } catch (caught) {
      error = caught as typeof error;
    }
    expect(error).toBeInstanceOf(RangeError);
    expect(error?.code).toBe("ERR_CTXWIN_CONTEXT_OVERFLOW");
    expect(error?.tokens).toBe(context.tokenUsage);
    expect(error?.limit).toBe(16000);
    expect(error?.pinnedTokens).toBeGreaterThan(16000);
    const sending = make("send");
    sending.addMessage({ role: "user", content: task, _preserve: true } as MessageLike);
    expect(sending.getContextForRequest()).toHaveLength(1);
  });

  it("imports a SUMMARIZE-mode export without a model, and summarizes offline when a summary is due", async () => {
    const context = new MessageContextManager<MessageLike>({ model: "gpt-4o", counter, mode: TruncationMode.SUMMARIZE, logger: quiet });
    context.addMessage({ role: "user", content: "Fix the invoice dates." });
    context.addMessage({ role: "assistant", content: "Reading src/util/dates.ts." });
    const copy = MessageContextManager.fromExport<MessageLike>(context.export(), { counter, logger: quiet });
    expect(copy.mode).toBe(TruncationMode.SUMMARIZE);
    expect(copy.getMessages()).toEqual(context.getMessages());
    expect(copy.compactor).toBeDefined();
  });

  it("keeps the first user message (the task) on /compact of a 4-message chat", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ctxwin-compact-first-"));
    const task = "Task: rename the billing module to payments and keep the public API unchanged.";
    const input = [task, "Also update the docs.", "/compact", "/export c.json"].join("\n");
    const result = await runCtxwin(["chat", "--offline", "--window", "3000"], { input, cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Compacted offline: [\d,]+ -> [\d,]+ tokens/);
    const exported = JSON.parse(readFileSync(join(dir, "c.json"), "utf8")) as { turns: Array<{ role: string; content: unknown }> };
    expect(exported.turns.find((m) => m.role === "user")?.content).toBe(task);
  });

  it("unpins the first user message when the caller says so", async () => {
    const make = (pinFirstUserMessage?: boolean) =>
      new MessageContextManager<MessageLike>({
        model: "gpt-4o",
        counter,
        limits: new ContextLimits({ model: "gpt-4o", maxTokens: 400, maxOutputTokens: 0, reservedTokens: 0 }),
        // Drop-oldest: unpinned, the task is the first to go (SMART keeps its first messages longest).
        mode: TruncationMode.TOKEN_BUDGET,
        logger: quiet,
        compaction: { pinFirstUserMessage },
      });
    for (const [pin, kept] of [
      [undefined, true],
      [false, false],
    ] as const) {
      const context = make(pin);
      context.addMessage({ role: "user", content: "The task: fix the dates." });
      for (let i = 0; i < 20; i++)
        context.addMessage({ role: i % 2 ? "user" : "assistant", content: `note ${i}: ${"more words here ".repeat(8)}` });
      expect(context.getMessages().some((m) => m.content === "The task: fix the dates.")).toBe(kept);
    }
  });
});
