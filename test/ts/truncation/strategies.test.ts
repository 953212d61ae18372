// Truncation scenarios, and the strategies' guarantees (system messages and pins kept, tool
// units whole, order kept, the target met when it can be) as properties.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TiktokenCounter, type MessageLike, type TokenCounter } from "ctxwin";
import { ApproximateCounter } from "ctxwin/tokens";
import {
  CompositeStrategy,
  SelectiveTruncationStrategy,
  SlidingWindowStrategy,
  SmartTruncationStrategy,
  TokenBudgetStrategy,
  type TruncationPlan,
  type TruncationStrategy,
} from "ctxwin/truncation";

type Msg = MessageLike & {
  tokens?: number;
  _preserve?: boolean;
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
};

/** Messages carry their own token counts: exact scenario numbers. */
const fixed: TokenCounter = {
  count: (text) => text.length,
  countMessages: (messages) => messages.reduce((sum, m) => sum + ((m as Msg).tokens ?? 5), 0),
};
const conversation = (n: number, tokens = 100): Msg[] =>
  Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}`, tokens }));
const BIG = 1_000_000;

describe("SlidingWindowStrategy", () => {
  it("keeps the last 10 of 25 messages", () => {
    const messages = conversation(25);
    const kept = new SlidingWindowStrategy({ windowSize: 10 }).truncate(messages, BIG, fixed);
    expect(kept).toEqual(messages.slice(15));
    kept.forEach((m, i) => expect(m).toBe(messages[15 + i])); // the caller's own objects
  });

  it("keeps both system messages and the 5 most recent others", () => {
    const messages: Msg[] = [
      { role: "system", content: "a", tokens: 5 },
      ...conversation(10),
      { role: "system", content: "b", tokens: 5 },
      ...conversation(10),
    ];
    const kept = new SlidingWindowStrategy({ windowSize: 5, preserveSystem: true }).truncate(messages, BIG, fixed);
    expect(kept.filter((m) => m.role === "system")).toHaveLength(2);
    expect(kept.filter((m) => m.role !== "system")).toEqual(messages.slice(-5));
  });

  it("returns everything unchanged when under the window", () => {
    const messages = conversation(5);
    expect(new SlidingWindowStrategy({ windowSize: 10 }).truncate(messages, BIG, fixed)).toEqual(messages);
  });
});

describe("TokenBudgetStrategy", () => {
  it("fits 10000 tokens into 5000, oldest removed first", () => {
    const messages = conversation(100, 100);
    const plan = new TokenBudgetStrategy().plan(messages, 5000, fixed);
    expect(plan.keptTokens).toBeLessThanOrEqual(5000);
    expect(plan.kept).toEqual(messages.slice(50));
    expect(plan.removed).toEqual(messages.slice(0, 50));
  });

  it("keeps the system message and gives the rest to recent messages", () => {
    const messages: Msg[] = [{ role: "system", content: "rules", tokens: 500 }, ...conversation(100, 100)];
    const kept = new TokenBudgetStrategy().truncate(messages, 2000, fixed);
    expect(kept[0]).toBe(messages[0]);
    expect(kept.slice(1)).toEqual(messages.slice(-15));
  });

  it("returns only system messages, with a warning, when they exceed the target", () => {
    const messages: Msg[] = [
      { role: "system", content: "a", tokens: 1500 },
      { role: "system", content: "b", tokens: 1500 },
      { role: "assistant", content: "x", tokens: 10 },
    ];
    const plan = new TokenBudgetStrategy().plan(messages, 2000, fixed);
    expect(plan.kept).toEqual(messages.slice(0, 2));
    expect(plan.fits).toBe(false);
    expect(plan.warning).toMatch(/more than the target of 2000/);
  });
});

describe("SmartTruncationStrategy", () => {
  it("keeps the first 2 and last 5 of 50 and inserts a marker", () => {
    const messages = conversation(50, 10);
    const kept = new SmartTruncationStrategy({ preserveFirst: 2, preserveLast: 5 }).truncate(messages, BIG, fixed);
    expect(kept.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(kept[2]).toEqual({ role: "system", content: "[43 messages omitted]" });
    expect(kept.slice(3)).toEqual(messages.slice(-5));
  });

  it("says [93 messages omitted] for 100 messages", () => {
    const plan = new SmartTruncationStrategy({ preserveFirst: 2, preserveLast: 5 }).plan(conversation(100, 10), BIG, fixed);
    expect(plan.marker?.message.content).toBe("[93 messages omitted]");
  });

  it("does not truncate a small conversation, and adds no marker", () => {
    const messages = conversation(5, 10);
    expect(new SmartTruncationStrategy({ preserveFirst: 2, preserveLast: 5 }).truncate(messages, BIG, fixed)).toEqual(messages);
  });

  it('drops the middle only as far as the target needs with dropMiddle: "as-needed"', () => {
    const messages = conversation(50, 10);
    const smart = new SmartTruncationStrategy({ preserveFirst: 2, preserveLast: 5, dropMiddle: "as-needed" });
    expect(smart.truncate(messages, BIG, fixed)).toEqual(messages);
    const plan = smart.plan(messages, 300, fixed);
    expect(plan.fits).toBe(true);
    expect(plan.kept.slice(0, 2)).toEqual(messages.slice(0, 2));
    // The newest that fit after the first two, the gap marked: far more than the last 5.
    expect(plan.kept.length).toBeGreaterThan(7);
    expect(plan.kept.slice(2)).toEqual(messages.slice(-(plan.kept.length - 2)));
    expect(plan.marker?.message.content).toBe(`[${50 - plan.kept.length} messages omitted]`);
    expect(() => new SmartTruncationStrategy({ dropMiddle: "some" as never })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_OUT_OF_RANGE" }),
    );
  });
});

describe("SelectiveTruncationStrategy", () => {
  it("preserves system and user messages; assistant and tool messages may go", () => {
    const messages: Msg[] = [
      { role: "system", content: "s", tokens: 10 },
      { role: "user", content: "u1", tokens: 10 },
      {
        role: "assistant",
        content: null,
        tokens: 10,
        tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c1", content: "big result", tokens: 500 },
      { role: "assistant", content: "a1", tokens: 10 },
      { role: "user", content: "u2", tokens: 10 },
    ];
    const kept = new SelectiveTruncationStrategy({ preserveRoles: ["system", "user"] }).truncate(messages, 60, fixed);
    expect(kept).toEqual([messages[0], messages[1], messages[4], messages[5]]); // the tool unit went first, whole
  });

  it("keeps messages marked _preserve: true", () => {
    const messages: Msg[] = conversation(20, 100);
    messages[3] = { ...messages[3]!, _preserve: true } as Msg;
    const kept = new SelectiveTruncationStrategy({ preserveRoles: ["system"], preserveMarked: true }).truncate(messages, 500, fixed);
    expect(kept).toContain(messages[3]);
  });
});

describe("CompositeStrategy", () => {
  it("applies the next strategy only while still over budget", () => {
    const calls: string[] = [];
    const spy = (inner: TruncationStrategy): TruncationStrategy => ({
      name: inner.name,
      plan: (m, t, c) => (calls.push(inner.name), inner.plan(m, t, c)),
      truncate: (m, t, c) => inner.truncate(m, t, c),
    });
    const lenient: TruncationStrategy = {
      name: "window_only",
      plan: <M extends MessageLike>(m: readonly M[]): TruncationPlan<M> => ({
        kept: m.slice(-30),
        removed: m.slice(0, -30),
        keptIndices: m.slice(-30).map((_, i) => m.length - 30 + i),
        removedIndices: m.slice(0, -30).map((_, i) => i),
        keptTokens: 3000,
        fits: false,
      }),
      truncate: (m) => m.slice(-30),
    };
    const messages = conversation(100, 100);
    const result = new CompositeStrategy([spy(lenient), spy(new TokenBudgetStrategy())]).truncate(messages, 1000, fixed);
    expect(calls).toEqual(["window_only", "token_budget"]);
    expect(result).toEqual(messages.slice(-10));

    calls.length = 0;
    new CompositeStrategy([spy(new SmartTruncationStrategy()), spy(new TokenBudgetStrategy())]).truncate(messages, 1500, fixed);
    expect(calls).toEqual(["smart"]); // smart already fits: TokenBudget is not applied
  });

  it("plans a chain of built-in strategies in one call", () => {
    const messages = conversation(60, 50);
    const plan = new CompositeStrategy([new SmartTruncationStrategy(), new TokenBudgetStrategy()]).plan(messages, 400, fixed);
    expect(plan.fits).toBe(true);
    expect(plan.keptTokens).toBeLessThanOrEqual(400);
  });
});

describe("shared options", () => {
  it("startOn: 'user' opens the kept conversation on a user message", () => {
    const messages: Msg[] = [
      { role: "system", content: "s", tokens: 5 },
      { role: "user", content: "q1", tokens: 100 },
      { role: "assistant", content: "a1", tokens: 30 },
      { role: "user", content: "q2", tokens: 30 },
    ];
    const kept = new TokenBudgetStrategy({ startOn: "user" }).truncate(messages, 80, fixed);
    expect(kept).toEqual([messages[0], messages[3]]);
  });

  it("never drops the most recent user message", () => {
    const messages: Msg[] = [
      { role: "user", content: "q", tokens: 50 },
      { role: "assistant", content: "a", tokens: 10 },
      { role: "assistant", content: "b", tokens: 10 },
    ];
    expect(new SlidingWindowStrategy({ windowSize: 1 }).truncate(messages, BIG, fixed)).toEqual([messages[0], messages[2]]);
  });

  it("reports a tool result without its call, or drops it when asked", () => {
    const messages: Msg[] = [
      { role: "user", content: "q" },
      { role: "tool", tool_call_id: "ghost", content: "r" },
    ];
    expect(() => new TokenBudgetStrategy().plan(messages, BIG, fixed)).toThrow(/messages\[1\] is a result of tool call "ghost"/);
    expect(new TokenBudgetStrategy({ orphanToolResults: "drop" }).truncate(messages, BIG, fixed)).toEqual([messages[0]]);
  });

  it("rejects bad input with clear errors", () => {
    const s = new TokenBudgetStrategy();
    expect(() => s.plan(conversation(3), -1, fixed)).toThrow(RangeError);
    expect(() => s.plan(conversation(3), Number.NaN, fixed)).toThrow(RangeError);
    expect(() => s.plan([{ content: "x" } as never], 10, fixed)).toThrow(/messages\[0\]\.role must be one of/);
    expect(() => s.plan([{ role: "wizard", content: "x" }], 10, fixed)).toThrow(TypeError);
    expect(() => s.plan([{ role: "user", content: 42 } as never], 10, fixed)).toThrow(/messages\[0\]\.content must be/);
    expect(() => new SlidingWindowStrategy({ windowSize: -1 })).toThrow(RangeError);
  });

  it("works with real counters and AI SDK / Anthropic shapes", () => {
    const counter = new TiktokenCounter({ model: "gpt-4o" });
    const aiSdk = [
      { role: "user", content: "Read a.ts" },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "read", input: { path: "a.ts" } }] },
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c1", toolName: "read", output: { type: "text", value: "x".repeat(4000) } }],
      },
      { role: "user", content: "Thanks" },
    ];
    // Oldest first: the opening question goes, then the tool unit (call and result together).
    expect(new TokenBudgetStrategy().truncate(aiSdk, 100, counter)).toEqual([aiSdk[3]]);
    expect(new SelectiveTruncationStrategy().truncate(aiSdk, 100, counter)).toEqual([aiSdk[0], aiSdk[3]]);
    const anthropic = [
      { role: "user", content: "Read a.ts" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "read", input: { path: "a.ts" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "y".repeat(4000) }] },
      { role: "user", content: "Thanks" },
    ];
    // Anthropic tool results travel in user messages: they still count as tool results.
    expect(new SelectiveTruncationStrategy().truncate(anthropic, 100, new ApproximateCounter({ charsPerToken: 4 }))).toEqual([
      anthropic[0],
      anthropic[3],
    ]);
  });
});

// ---------------------------------------------------------------- invariants, as properties
const messageArb = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("system" as const), tokens: fc.integer({ min: 0, max: 60 }), marked: fc.constant(false) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constantFrom("user" as const, "assistant" as const),
      tokens: fc.integer({ min: 0, max: 150 }),
      marked: fc.boolean().map((b) => b && Math.random() < 0.2),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("unit" as const),
      tokens: fc.integer({ min: 0, max: 80 }),
      results: fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 3 }),
      marked: fc.constant(false),
    }),
  },
);

function build(spec: Array<{ kind: string; tokens: number; marked: boolean; results?: number[] }>): Msg[] {
  const out: Msg[] = [];
  spec.forEach((s, i) => {
    if (s.kind === "unit") {
      const calls = (s.results ?? []).map((_, k) => ({
        id: `c${i}_${k}`,
        type: "function" as const,
        function: { name: "f", arguments: "{}" },
      }));
      out.push({ role: "assistant", content: null, tokens: s.tokens, tool_calls: calls });
      (s.results ?? []).forEach((t, k) => out.push({ role: "tool", tool_call_id: `c${i}_${k}`, content: "r", tokens: t }));
    } else {
      out.push({ role: s.kind, content: "m", tokens: s.tokens, ...(s.marked ? { _preserve: true } : {}) });
    }
  });
  return out;
}

const strategies: Array<[string, () => TruncationStrategy]> = [
  ["sliding window", () => new SlidingWindowStrategy({ windowSize: 6 })],
  ["token budget", () => new TokenBudgetStrategy()],
  ["smart", () => new SmartTruncationStrategy({ preserveFirst: 2, preserveLast: 4 })],
  ["smart, the middle as needed", () => new SmartTruncationStrategy({ preserveFirst: 2, preserveLast: 4, dropMiddle: "as-needed" })],
  ["selective", () => new SelectiveTruncationStrategy({ preserveRoles: ["system"] })],
  ["token budget, startOn user", () => new TokenBudgetStrategy({ startOn: "user" })],
  [
    "composite",
    () =>
      new CompositeStrategy([
        new SmartTruncationStrategy({ preserveFirst: 1, preserveLast: 3 }),
        new SlidingWindowStrategy({ windowSize: 4 }),
        new TokenBudgetStrategy(),
      ]),
  ],
];

describe.each(strategies)("invariants: %s", (_, make) => {
  it("system and marked kept, tool units whole, order kept, fits whenever the pinned messages allow", () => {
    fc.assert(
      fc.property(fc.array(messageArb, { maxLength: 25 }), fc.integer({ min: 0, max: 1500 }), (spec, target) => {
        const messages = build(spec);
        const plan = make().plan(messages, target, fixed);
        const kept = new Set(plan.kept);
        // order: kept indices ascend and kept + removed is everything
        expect(plan.keptIndices).toEqual([...plan.keptIndices].sort((a, b) => a - b));
        expect(plan.kept.length + plan.removed.length).toBe(messages.length);
        const lastUser = messages.map((m) => m.role).lastIndexOf("user");
        let pinnedTokens = 0;
        messages.forEach((m, i) => {
          const pinned = m.role === "system" || m._preserve === true || i === lastUser;
          if (pinned) {
            pinnedTokens += m.tokens ?? 0;
            expect(kept.has(m)).toBe(true);
          }
        });
        // tool units: a call with all its results, or none of them
        messages.forEach((m) => {
          if (!m.tool_calls) return;
          const results = messages.filter((r) => m.tool_calls!.some((c) => c.id === (r as { tool_call_id?: string }).tool_call_id));
          for (const r of results) expect(kept.has(r)).toBe(kept.has(m));
        });
        if (pinnedTokens <= target && plan.warning === undefined) expect(plan.fits).toBe(true);
        if (!plan.fits) expect(plan.warning).toBeDefined();
        // the caller's objects come back untouched
        for (const m of plan.kept) expect(messages).toContain(m);
      }),
      { numRuns: 300 },
    );
  });
});

describe("inserted message roles", () => {
  it("lets the omission marker be a user or assistant message", () => {
    const kept = new SmartTruncationStrategy({ preserveFirst: 2, preserveLast: 5, markerRole: "assistant" }).truncate(
      conversation(50, 10),
      BIG,
      fixed,
    );
    expect(kept[2]).toEqual({ role: "assistant", content: "[43 messages omitted]" });
    const chained = new CompositeStrategy([new SmartTruncationStrategy({ markerRole: "user" }), new TokenBudgetStrategy()]).plan(
      conversation(60, 10),
      BIG,
      fixed,
    );
    expect(chained.marker?.message.role).toBe("user");
    expect(() => new SmartTruncationStrategy({ markerRole: "tool" as never })).toThrow(RangeError);
  });
});
