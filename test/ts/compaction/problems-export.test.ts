// The open-problems record travels with an export: `fromExport(context.export())` continues the
// same record (a problem whose result is no longer among the turns is still open, and a later pass
// resolves it); exports written before the record was kept, or without problems, still import; a
// bad record is refused with a coded error before anything changes.
import { describe, expect, it } from "vitest";
import { MessageContextManager, TiktokenCounter, TruncationMode, type MessageLike } from "ctxwin";

const counter = new TiktokenCounter({ model: "gpt-4o" });
const ENOSPC = "Error: ENOSPC: no space left on device, write 'dist/bundle.js'";

function build(id: string, output: string): MessageLike[] {
  return [
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name: "run_command", arguments: JSON.stringify({ command: "npm run build" }) } }],
    } as MessageLike,
    { role: "tool", tool_call_id: id, content: output } as MessageLike,
  ];
}

function failingSession(): MessageContextManager<MessageLike> {
  const context = new MessageContextManager<MessageLike>({ model: "gpt-4o", counter, mode: TruncationMode.SUMMARIZE });
  context.addMessage({ role: "user", content: "Ship the release build." });
  for (const m of build("call_1", `> tsc && esbuild\n${ENOSPC}\nexit code 1`)) context.addMessage(m);
  return context;
}

describe("the open-problems record in an export", () => {
  it("is exported, and fromExport continues it", () => {
    const exported = failingSession().export();
    expect(exported.open_problems?.problems).toHaveLength(1);
    expect(exported.open_problems?.problems[0]).toMatchObject({
      label: "`npm run build`",
      id: "call_1",
      lines: expect.arrayContaining([ENOSPC]),
    });
    expect(exported.open_problems?.problems[0]?.resolved).toBeUndefined();

    // The round trip gives the same record, through JSON text too.
    const restored = MessageContextManager.fromExport(JSON.parse(JSON.stringify(exported)));
    expect(restored.export().open_problems).toEqual(exported.open_problems);

    // The failing result's turns are gone (compacted away in another process): the record still has it open,
    // and a later passing build resolves it.
    const withoutResult = { ...exported, turns: exported.turns.slice(0, 1) };
    const continued = MessageContextManager.fromExport(withoutResult);
    expect(continued.export().open_problems?.problems.filter((p) => p.resolved === undefined)).toHaveLength(1);
    for (const m of build("call_2", "> tsc && esbuild\nbuild ok in 4.4s\nexit code 0")) continued.addMessage(m);
    const after = continued.export().open_problems?.problems ?? [];
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: "call_1", resolved: { id: "call_2" } });
  });

  it("an export without problems carries no record, and an export written before the record imports", () => {
    const clean = new MessageContextManager<MessageLike>({ model: "gpt-4o", counter });
    clean.addMessage({ role: "user", content: "Hello" });
    const exported = clean.export();
    expect("open_problems" in exported).toBe(false);
    const old = {
      format: "ctxwin-context",
      version: 1,
      metadata: { session_id: "s1", model: "gpt-4o", mode: "summarize" },
      system_prompt: null,
      turns: [{ role: "user", content: "Hello" }, ...build("call_9", ENOSPC)],
    };
    const imported = MessageContextManager.fromExport(old);
    expect(imported.getMessages()).toHaveLength(3);
    // Its results are read when the record is needed.
    expect(imported.export().open_problems?.problems[0]).toMatchObject({ id: "call_9" });
  });

  it("refuses a bad record with a coded error, and leaves the manager as it was", () => {
    const exported = failingSession().export();
    expect(() => MessageContextManager.fromExport({ ...exported, open_problems: { problems: "none" } })).toThrow(
      expect.objectContaining({ name: "TypeError", code: "ERR_CTXWIN_INVALID_EXPORT", path: "open_problems" }),
    );
    const target = failingSession();
    target.addMessage({ role: "user", content: "One more thing." });
    const before = target.export();
    const bad = { ...exported, open_problems: { problems: [{ check: 5 }], seen: 1 } };
    expect(() => target.import(bad)).toThrow(
      expect.objectContaining({
        name: "TypeError",
        code: "ERR_CTXWIN_INVALID_ARGUMENT",
        message: expect.stringContaining("open_problems"),
      }),
    );
    expect(target.export()).toEqual({ ...before, metadata: { ...before.metadata, updated_at: target.export().metadata.updated_at } });
  });
});
