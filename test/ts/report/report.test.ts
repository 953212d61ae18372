// The session report's figures and page, from the public API (`ctxwin/report`): the composition
// of each request, hand-computed on a small log and equal to the manager's own count on a real
// 60-step session; the compactions and what they took; the modelled cost; the escaping of
// everything a log holds; the bad input; and the page's size for a 1,000-request session. The
// page in a real browser (its parts, the screenshot, no console error) is test/web/report.mjs.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import type { MessageLike } from "ctxwin";
import { FileSessionStore, MemorySessionStore, type SessionEntry, type SessionStore } from "ctxwin/session";
import { analyzeSession, escapeHtml, renderReport, REPORT_COMPONENTS, type SessionAnalysis } from "ctxwin/report";
import { getCounter } from "ctxwin/tokens";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../support/cli.js";

interface SessionModule {
  MODEL: string;
  LIMITS: { maxTokens: number; maxOutputTokens: number };
  SYSTEM: string;
  TASK: string;
  playSession(store: SessionStore, id: string, steps?: number, options?: { compactEvery?: number }): Promise<number[]>;
}
const session = (await import(pathToFileURL(join(packageRoot, "test", "web", "report-session.mjs")).href)) as SessionModule;
const { MODEL, LIMITS } = session;

/** A counter whose figures a test can compute by hand: 3 per request, 4 plus its JSON's length per message. */
const jsonCounter = {
  count: (text: string) => text.length,
  countMessages: (messages: readonly MessageLike[]) => messages.reduce((n, m) => n + 4 + JSON.stringify(m).length, 3),
};
const tok = (m: MessageLike) => 4 + JSON.stringify(m).length;

const SYS = { role: "system", content: "SYS" } as MessageLike;
const TASK = { role: "user", content: "fix the date bug" } as MessageLike;
const CALL = {
  role: "assistant",
  content: null,
  tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } }],
} as MessageLike;
const RESULT = { role: "tool", tool_call_id: "c1", content: "x".repeat(100) } as MessageLike;
const CLEARED = { role: "tool", tool_call_id: "c1", content: "[cleared]" } as MessageLike;
const A2 = { role: "assistant", content: "reading" } as MessageLike;
const U2 = { role: "user", content: "go on" } as MessageLike;
const SUMMARY = { role: "user", content: "Summary: read a.ts" } as MessageLike;
const A3 = { role: "assistant", content: "done" } as MessageLike;
const A4 = { role: "assistant", content: "fin" } as MessageLike;
const MARKER = { role: "user", content: "[2 messages omitted]" } as MessageLike;

/** A log with a request before and after a level-2 clearing, a summary and a trim. */
const LOG: SessionEntry[] = [
  { type: "system", prompt: "SYS" },
  { type: "message", id: "u1", message: TASK },
  { type: "message", id: "a1", message: CALL }, // request 1: system, task
  { type: "message", id: "t1", message: RESULT },
  { type: "message", id: "a2", message: A2 }, // request 2: + the call, its result
  { type: "message", id: "u2", message: U2 },
  { type: "boundary", boundary: { kind: "replace", messages: [{ id: "t1", message: CLEARED }] } },
  { type: "boundary", boundary: { kind: "summary", removed: ["a2", "u2"], id: "s1", message: SUMMARY } },
  { type: "message", id: "a3", message: A3 }, // request 3: after compaction 1
  { type: "boundary", boundary: { kind: "trim", removed: ["a1", "t1"], marker: { after: "u1", omitted: 2, role: "user" } } },
  { type: "message", id: "a4", message: A4 }, // request 4: after compaction 2
];

const analyze = (log: Iterable<SessionEntry | { seq: number; time: number; entry: SessionEntry }>) =>
  analyzeSession(log, { model: MODEL, limits: LIMITS, counter: jsonCounter, cost: false });

describe("analyzeSession: the composition of each request", () => {
  it("splits each request into system, task, summary, tool results and messages, by hand", () => {
    const a = analyze(LOG);
    const system = 3 + tok(SYS);
    expect(REPORT_COMPONENTS).toEqual(["system", "task", "summary", "tool results", "messages"]);
    expect(a.requests.map((r) => r.tokens)).toEqual([
      [system, tok(TASK), 0, 0, 0],
      [system, tok(TASK), 0, tok(RESULT), tok(CALL)],
      [system, tok(TASK), tok(SUMMARY), tok(CLEARED), tok(CALL)],
      [system, tok(TASK), tok(MARKER) + tok(SUMMARY), 0, tok(A3)],
    ]);
    for (const r of a.requests) expect(r.total).toBe(r.tokens.reduce((x, y) => x + y, 0));
    expect(a.requests.map((r) => r.outputTokens)).toEqual([tok(CALL), tok(A2), tok(A3), tok(A4)]);
    expect(a.requests.map((r) => r.messages)).toEqual([2, 4, 5, 5]);
    expect(a.requests.map((r) => r.seq)).toEqual([2, 4, 8, 10]);
    expect(a.usage).toBe("recounted");
    expect(a.records).toBe(LOG.length);
  });

  it("groups the boundaries between two replies into one compaction and names what each took", () => {
    const a = analyze(LOG);
    expect(a.compactions).toHaveLength(2);
    const [first, second] = a.compactions;
    expect(first).toMatchObject({ request: 2, seq: 6 });
    expect(first?.units).toEqual([
      { kind: "rewritten", ids: ["t1"], more: 0 },
      { kind: "summarized", ids: ["a2", "u2"], more: 0, summaryId: "s1" },
    ]);
    // Before: the last request and what came after it (the reply, the user's message).
    const system = 3 + tok(SYS);
    expect(first?.tokensBefore).toBe(system + tok(TASK) + tok(CALL) + tok(RESULT) + tok(A2) + tok(U2));
    expect(first?.tokensAfter).toBe(a.requests[2]?.total);
    expect(second).toMatchObject({ request: 3, units: [{ kind: "trimmed", ids: ["a1", "t1"], more: 0 }] });
    expect(second?.tokensBefore).toBe(system + tok(TASK) + tok(CALL) + tok(CLEARED) + tok(SUMMARY) + tok(A3));
    expect(second?.tokensAfter).toBe(a.requests[3]?.total);
  });

  it("reads records as a store returns them (their times kept), and bounds the ids it lists", () => {
    const records = LOG.map((entry, seq) => ({ seq, time: 1_700_000_000_000 + seq, entry }));
    const a = analyze(records);
    expect(a.requests.map((r) => r.time)).toEqual([1_700_000_000_002, 1_700_000_000_004, 1_700_000_000_008, 1_700_000_000_010]);
    expect(a.compactions[0]?.time).toBe(1_700_000_000_006);
    const bounded = analyzeSession(LOG, { model: MODEL, limits: LIMITS, counter: jsonCounter, cost: false, maxIds: 1 });
    expect(bounded.compactions[0]?.units[1]).toEqual({ kind: "summarized", ids: ["a2"], more: 1, summaryId: "s1" });
  });

  it("draws the manager's limits as thresholds", () => {
    const a = analyze(LOG);
    // gpt-4o capped at 8,000 with 1,000 for the response and the default 1,000 margin.
    expect(a).toMatchObject({ window: 8000, effectiveLimit: 6000, trimAt: 4800, trimTo: 3600 });
    const tight = analyzeSession(LOG, { model: MODEL, limits: LIMITS, counter: jsonCounter, cost: false, trimAt: 0.9, trimTo: 0.5 });
    expect(tight).toMatchObject({ trimAt: 5400, trimTo: 3000 });
  });
});

describe("analyzeSession on a real session (MessageContextManager, FileSessionStore, 60 steps)", () => {
  let dir: string;
  let totals: number[];
  let a: SessionAnalysis;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "ctxwin-report-"));
    const store = new FileSessionStore({ directory: dir, fsync: false });
    totals = await session.playSession(store, "agent", 60);
    a = analyzeSession(await store.read("agent"), { model: MODEL, limits: LIMITS });
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("recounts every request to exactly what the manager counted for it", () => {
    expect(a.requests).toHaveLength(61);
    expect(a.requests.map((r) => r.total)).toEqual(totals);
  });

  it("puts the system prompt and the task in their components in every request", () => {
    const counter = getCounter(MODEL);
    const overhead = counter.countMessages([]);
    const system = counter.countMessages([{ role: "system", content: session.SYSTEM }]);
    const task = counter.countMessages([{ role: "user", content: session.TASK }]) - overhead;
    for (const r of a.requests) {
      expect(r.tokens[0]).toBe(system);
      expect(r.tokens[1]).toBe(task);
      expect(r.tokens.reduce((x, y) => x + y, 0)).toBe(r.total);
    }
    // The agent's tool results are most of its context once it has read a few files.
    expect(a.requests.slice(10).every((r) => (r.tokens[3] as number) > r.total / 2)).toBe(true);
  });

  it("finds the compactions the loop made, each one lowering the context", () => {
    expect(a.compactions.length).toBeGreaterThanOrEqual(5);
    for (const c of a.compactions) {
      expect(c.units.length).toBeGreaterThan(0);
      expect(c.tokensAfter).toBeLessThan(c.tokensBefore);
      expect(c.tokensAfter).toBe(a.requests[c.request]?.total);
    }
    const kinds = new Set(a.compactions.flatMap((c) => c.units.map((u) => u.kind)));
    expect(kinds).toEqual(new Set(["rewritten", "trimmed"]));
    // Every request is back under the window's prompt budget.
    expect(Math.max(...a.requests.map((r) => r.total))).toBeLessThanOrEqual(a.effectiveLimit);
  });

  it("follows the open problems: a failing build and a failing test, each resolved by a later pass", () => {
    expect(a.problems.map((p) => [p.label, p.since, p.resolved])).toEqual([
      ["`npm run build`", 5, 25],
      ["`npm test`", 8, 48],
    ]);
    expect(a.requests.map((r) => r.openProblems).slice(4, 10)).toEqual([0, 1, 1, 1, 2, 2]);
    expect(a.requests[60]?.openProblems).toBe(0);
  });

  it("bills each request through the provider's cache when the catalog prices the model", () => {
    const cost = a.cost;
    expect(cost?.provider).toBe("openai");
    const sum = a.requests.reduce((n, r) => n + (r.cost?.dollars ?? 0), 0);
    expect(sum).toBeCloseTo(cost?.dollars ?? -1, 10);
    expect(a.requests[0]?.cost?.cachedTokens).toBe(0);
    expect(cost?.cachedTokens).toBeGreaterThan(0);
    expect(cost?.dollars).toBeLessThan(cost?.noCacheDollars ?? 0);
    for (const r of a.requests)
      expect((r.cost?.cachedTokens ?? 0) + (r.cost?.uncachedTokens ?? 0) + (r.cost?.writtenTokens ?? 0)).toBe(r.total);
    const unbilled = analyzeSession([], { model: MODEL, cost: false });
    expect(unbilled.cost).toBeUndefined();
  });
});

describe("escaping: nothing from a log becomes markup", () => {
  it("escapeHtml writes & < > \" ' as entities and nothing else", () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe("&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;");
    expect(escapeHtml("plain text, ünïcode ✓")).toBe("plain text, ünïcode ✓");
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const escaped = escapeHtml(text);
        expect(escaped).not.toMatch(/[<>"']/);
        const back = escaped.replace(
          /&(lt|gt|quot|#39|amp);/g,
          (_m, e: string) => ({ lt: "<", gt: ">", quot: '"', "#39": "'", amp: "&" })[e] as string,
        );
        expect(back).toBe(text);
      }),
    );
  });

  it("a log whose ids, commands and outputs are markup gives a page with only its own script and no element of theirs", () => {
    const evil = `"><img src=x onerror=alert(1)><script>alert(2)</script>`;
    const log: SessionEntry[] = [
      { type: "message", id: `u${evil}`, message: { role: "user", content: evil } },
      {
        type: "message",
        id: `a${evil}`,
        message: {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "c1",
              type: "function",
              function: { name: "run_command", arguments: JSON.stringify({ command: `npm test -- ${evil}` }) },
            },
          ],
        },
      },
      { type: "message", id: `t${evil}`, message: { role: "tool", tool_call_id: "c1", content: `Error: ${evil}\nexit code 1` } },
      { type: "boundary", boundary: { kind: "trim", removed: [`a${evil}`, `t${evil}`], marker: null } },
      { type: "message", id: "r", message: { role: "assistant", content: evil } },
    ];
    const html = renderReport(log, { model: MODEL, limits: LIMITS, title: `Report ${evil}` });
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toMatch(/<img/);
    expect(html).not.toContain(evil);
    expect(html).toContain(`<title>Report ${escapeHtml(evil)}</title>`);
    expect(html).toContain(`a${escapeHtml(evil)} t${escapeHtml(evil)}`); // the compaction's ids
    expect(html).toContain(`<pre>Error: ${escapeHtml(evil)}</pre>`); // the problem's line
    // The script's data is numbers only, and the page loads nothing.
    const script = /<script>([\s\S]*)<\/script>/.exec(html)?.[1] ?? "";
    expect(/var D=(\{[^;]*\}),N=/.exec(script)?.[1]).toMatch(/^[{}[\]":,\-\d.tcdp]*$/);
    expect(html).toContain(`content="default-src 'none';`);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });
});

describe("bad input", () => {
  it("is a coded TypeError or RangeError naming the argument", () => {
    const expectCode = (run: () => unknown, type: ErrorConstructor, code: string, message: RegExp) => {
      let error: unknown;
      try {
        run();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(type);
      expect((error as { code?: string }).code).toBe(code);
      expect((error as Error).message).toMatch(message);
    };
    expectCode(() => analyzeSession(null as never, { model: MODEL }), TypeError, "ERR_CTXWIN_INVALID_ARGUMENT", /^log must be an iterable/);
    expectCode(() => analyzeSession([], null as never), TypeError, "ERR_CTXWIN_INVALID_ARGUMENT", /^options must be an object/);
    expectCode(() => analyzeSession([], { model: 4 as never }), TypeError, "ERR_CTXWIN_INVALID_ARGUMENT", /options\.model/);
    expectCode(() => analyzeSession([], { model: "no-such-model-xyz" }), RangeError, "ERR_CTXWIN_UNKNOWN_MODEL", /no-such-model-xyz/);
    expectCode(() => analyzeSession([], { model: MODEL, trimAt: 2 }), RangeError, "ERR_CTXWIN_OUT_OF_RANGE", /options\.trimAt/);
    expectCode(() => analyzeSession([], { model: MODEL, maxIds: -1 }), RangeError, "ERR_CTXWIN_OUT_OF_RANGE", /options\.maxIds/);
    expectCode(
      () => analyzeSession([], { model: MODEL, counter: {} as never }),
      TypeError,
      "ERR_CTXWIN_INVALID_ARGUMENT",
      /options\.counter/,
    );
    const corrupt = [{ type: "message", id: "x" } as SessionEntry];
    expect(() => renderReport(corrupt, { model: MODEL })).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_SESSION_CORRUPT" }));
  });

  it("an empty log is a page with no request", () => {
    const html = renderReport([], { model: MODEL });
    expect(html).toContain('data-requests="0"');
    expect(html).toContain("No trim or compaction in this session.");
  });
});

describe("the page's size", () => {
  it("stays under 300 KB for a 1,000-request session", async () => {
    const store = new MemorySessionStore();
    await session.playSession(store, "long", 999, { compactEvery: 0 });
    const records = await store.read("long");
    const a = analyzeSession(records, { model: MODEL, limits: LIMITS });
    expect(a.requests).toHaveLength(1000);
    expect(a.compactions.length).toBeGreaterThan(100);
    const bytes = Buffer.byteLength(renderReport(records, { model: MODEL, limits: LIMITS }));
    expect(bytes).toBeLessThan(300 * 1024);
  }, 120_000);
});
