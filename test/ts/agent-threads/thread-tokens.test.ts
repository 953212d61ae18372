import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ContextManager, type AgentEvent } from "ctxwin";
import type { ToolCallEvent } from "ctxwin/agent-threads";
import { agentSession, makeThread } from "../support/fixtures.js";

// The reference implementation, written out: the oracle for every count below.
const referenceThreadTokens = (events: unknown[]) =>
  events.reduce<number>((sum, event) => sum + Math.ceil(JSON.stringify(event).length / 3.5), 0);

afterEach(() => vi.restoreAllMocks());

describe("estimateThreadTokens", () => {
  it("sums token estimates across all events, as the reference does", () => {
    const cm = new ContextManager();
    const thread = makeThread(agentSession(20));
    expect(cm.estimateThreadTokens(thread)).toBe(referenceThreadTokens(thread.events));
    expect(cm.estimateThreadTokens(makeThread())).toBe(0);
  });

  it("matches the reference on random events (property)", () => {
    const event = fc.record({
      type: fc.constant("message" as const),
      timestamp: fc.integer(),
      iteration: fc.integer({ min: 0, max: 50 }),
      role: fc.constantFrom("user" as const, "assistant" as const, "system" as const),
      content: fc.string({ unit: "binary", maxLength: 300 }),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (events) => {
        const cm = new ContextManager();
        const thread = makeThread(events);
        expect(cm.estimateThreadTokens(thread)).toBe(referenceThreadTokens(events));
        expect(cm.estimateThreadTokens(thread)).toBe(referenceThreadTokens(events));
      }),
      { numRuns: 300 },
    );
  });

  it("serializes only the new events when the thread grows by k", () => {
    const cm = new ContextManager();
    const thread = makeThread(agentSession(100));
    cm.estimateThreadTokens(thread);
    const stringify = vi.spyOn(JSON, "stringify");
    thread.events.push(...agentSession(103).slice(-7));
    expect(cm.estimateThreadTokens(thread)).toBe(referenceThreadTokens(thread.events.slice()));
    // 7 new events serialized by the manager (+ the oracle's own calls after it).
    const managerCalls = stringify.mock.calls.length - thread.events.length;
    expect(managerCalls).toBe(7);
  });

  it("never returns a stale count for an event changed in place", () => {
    const cm = new ContextManager();
    const events = agentSession(3);
    const thread = makeThread(events);
    const before = cm.estimateThreadTokens(thread);

    const call = events[0] as ToolCallEvent;
    call.args.path = `${call.args.path as string}/a/much/longer/path/than/before/to/change/the/count`;
    expect(cm.estimateThreadTokens(thread)).toBe(referenceThreadTokens(events));
    expect(cm.estimateThreadTokens(thread)).not.toBe(before);

    (events[1] as { result: unknown }).result = { lines: ["a", "b"] };
    expect(cm.estimateThreadTokens(thread)).toBe(referenceThreadTokens(events));
    (events[1] as { result: { lines: string[] } }).result.lines.push("c".repeat(100));
    expect(cm.estimateThreadTokens(thread)).toBe(referenceThreadTokens(events));

    // A key added, then removed.
    (events[2] as unknown as Record<string, unknown>).extra = "x".repeat(50);
    expect(cm.estimateThreadTokens(thread)).toBe(referenceThreadTokens(events));
    delete (events[2] as unknown as Record<string, unknown>).extra;
    expect(cm.estimateThreadTokens(thread)).toBe(referenceThreadTokens(events));

    // Replaced and removed events.
    events.splice(1, 1);
    expect(cm.estimateThreadTokens(thread)).toBe(referenceThreadTokens(events));
  });

  it("re-serializes values whose JSON can change without a visible edit (toJSON)", () => {
    const cm = new ContextManager();
    const date = new Date(0);
    const events = [{ type: "tool_result", timestamp: 1, iteration: 1, toolCallId: "c", result: { at: date } }] as unknown as AgentEvent[];
    const thread = makeThread(events);
    expect(cm.estimateThreadTokens(thread)).toBe(referenceThreadTokens(events));
    date.setTime(8.64e15); // a longer ISO string, same object
    expect(cm.estimateThreadTokens(thread)).toBe(referenceThreadTokens(events));
  });

  it("keeps counts per manager: two estimators never share a cache", () => {
    const thread = makeThread(agentSession(5));
    const a = new ContextManager();
    const b = new ContextManager({ tokenEstimator: () => 1 });
    expect(a.estimateThreadTokens(thread)).toBe(referenceThreadTokens(thread.events));
    expect(b.estimateThreadTokens(thread)).toBe(thread.events.length);
  });

  it("uses tokenEstimator on each event's JSON", () => {
    const seen: string[] = [];
    const cm = new ContextManager({ tokenEstimator: (text) => (seen.push(text), text.length) });
    const thread = makeThread(agentSession(2));
    expect(cm.estimateThreadTokens(thread)).toBe(thread.events.reduce((s, e) => s + JSON.stringify(e).length, 0));
    expect(seen).toEqual(thread.events.map((e) => JSON.stringify(e)));
  });
});

describe("needsSummarization", () => {
  it("is true exactly when the estimate exceeds maxContextTokens", () => {
    const thread = makeThread(agentSession(10));
    const total = referenceThreadTokens(thread.events);
    expect(new ContextManager({ maxContextTokens: total }).needsSummarization(thread)).toBe(false);
    expect(new ContextManager({ maxContextTokens: total - 1 }).needsSummarization(thread)).toBe(true);
    expect(new ContextManager().needsSummarization(thread)).toBe(false); // default 150000
  });
});

describe("ContextManager defaults", () => {
  it("uses the reference's defaults", () => {
    const cm = new ContextManager();
    expect(cm.maxContextTokens).toBe(150000);
    expect(cm.keepRecentIterations).toBe(3);
    expect(new ContextManager({ maxContextTokens: 10, keepRecentIterations: 0 }).keepRecentIterations).toBe(0);
  });
});

describe("estimateThreadTokens of a deeply nested event", () => {
  it("follows JSON.stringify on this runtime: the reference's count where it serializes, a coded TypeError where it overflows", () => {
    let value: unknown = "leaf";
    for (let i = 0; i < 200_000; i++) value = { d: value };
    const event = { type: "tool_result", iteration: 1, deep: value } as unknown as AgentEvent;
    const thread = makeThread([event]);
    const cm = new ContextManager();
    let json: string | undefined;
    try {
      json = JSON.stringify(event);
    } catch {
      json = undefined;
    }
    if (json !== undefined) expect(cm.estimateThreadTokens(thread)).toBe(referenceThreadTokens([event]));
    else
      expect(() => cm.estimateThreadTokens(thread)).toThrow(
        expect.objectContaining({ name: "TypeError", code: "ERR_CTXWIN_INVALID_THREAD" }),
      );
  });
});
