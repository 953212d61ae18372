// context_status, compact_context and the notices on a MessageContextManager, through the public
// API: a 60-step loop driven by hand (a message added per step, a request per step), the
// compaction asked at step 20 run by the next getContextForRequest, keep's id verbatim and its text
// carried, each notice in exactly one request and on the `notice` event.
import { describe, expect, it } from "vitest";
import { MessageContextManager, getCounter, type CompactionReport } from "ctxwin";
import { contextToolDefinitions, runContextTool, contextToolTarget, type NoticeEvent } from "ctxwin/context";
import { MODEL, SYSTEM, TASK, toolOutput } from "../support/tool-loop.js";
import { FINDING, LIMITS, NOTICES } from "./agent-loop.js";

type Message = { role: string; content: string; tool_call_id?: string; tool_calls?: unknown[] };

const call = (id: string) => ({
  role: "assistant",
  content: "",
  tool_calls: [{ id, type: "function", function: { name: "read_file", arguments: "{}" } }],
});

describe("the agent tools on a MessageContextManager", () => {
  it("queues the asked compaction for the next request and tells the model once", async () => {
    const manager = new MessageContextManager<Message>({ model: MODEL, limits: LIMITS, notices: NOTICES });
    const notices: NoticeEvent[] = [];
    const compactions: Array<CompactionReport<Message>> = [];
    manager.on("notice", (event) => notices.push(event));
    manager.on("compacted", (report) => compactions.push(report));
    manager.setSystemPrompt(SYSTEM);
    manager.addMessage({ role: "user", content: TASK });
    const target = contextToolTarget(manager);
    const seen = new Map<string, number>();
    for (let step = 1; step <= 60; step++) {
      if (step === 20) {
        const answer = await runContextTool(target, "compact_context", { reason: "phase one done", keep: ["call_3", FINDING] });
        expect(answer).toMatch(/^Queued, not done yet/);
        expect(manager.status().pending).toEqual({ reason: "phase one done", keep: ["call_3"], text: FINDING });
        expect(manager.getMessages().find((m) => m.tool_call_id === "call_4")?.content).toBe(toolOutput(4));
      }
      const request = manager.getContextForRequest();
      expect(manager.tokenUsage).toBeLessThanOrEqual(manager.limits.effectiveLimit);
      const texts = request.map((m) => String(m.content));
      for (const t of texts.filter((x) => x.startsWith("[ctxwin] Context"))) seen.set(t, (seen.get(t) ?? 0) + 1);
      if (step === 20) {
        expect(compactions).toHaveLength(1);
        const results = new Map(
          request.flatMap((m) => ("tool_call_id" in m && m.tool_call_id ? [[m.tool_call_id, String(m.content)]] : [])),
        );
        expect(results.get("call_3")).toBe(toolOutput(3));
        expect(results.get("call_4")).toMatch(/^\[tool result cleared: /);
        expect(texts).toContain(`[ctxwin] Kept through compaction at your request: ${FINDING}`);
        expect(texts.at(-1)).toMatch(/^\[ctxwin\] Context compacted: \d+ tool results cleared, .*; recall ids call_1, call_2, call_4, /);
        expect(manager.status().pending).toBeUndefined();
      }
      manager.addMessage(call(`call_${step}`));
      manager.addMessage({ role: "tool", tool_call_id: `call_${step}`, content: toolOutput(step) });
    }
    const status = manager.status();
    expect(status.compactions.recent[0]?.line).toMatch(/^#1 before request 20 \(asked: phase one done\)/);
    expect(status.components.toolResults).toBeGreaterThan(0);
    const text = await runContextTool(target, "context_status", {});
    expect(getCounter(MODEL).count(text)).toBeLessThanOrEqual(400);
    expect(notices.some((n) => n.kind === "beforeCompaction")).toBe(true);
    for (const notice of notices) expect(seen.get(`[ctxwin] ${notice.text}`)).toBe(1);
    expect(seen.size).toBe(notices.length);
  });

  it("answers bad input with a coded line, and gives plain definitions for any framework", async () => {
    const manager = new MessageContextManager({ model: MODEL });
    const target = contextToolTarget(manager);
    expect(await runContextTool(target, "compact_context", { keep: 3 })).toMatch(
      /^\[compact_context ERR_CTXWIN_INVALID_ARGUMENT: request\.reason/,
    );
    expect(await runContextTool(target, "nope", {})).toMatch(/^\[nope ERR_CTXWIN_INVALID_ARGUMENT/);
    expect(contextToolDefinitions().map((d) => d.function?.name)).toEqual(["context_status", "compact_context"]);
    expect(() => new MessageContextManager({ model: MODEL, notices: { beforeCompaction: { at: 2 } } })).toThrow(
      expect.objectContaining({ name: "RangeError", code: "ERR_CTXWIN_OUT_OF_RANGE" }),
    );
  });
});
