// Every public entry point rejects bad input with a TypeError or RangeError that names the
// argument and carries a code; nothing crashes the process, and nothing is changed.
import { describe, expect, it } from "vitest";
import { ContextManager, estimateTokens, extractiveSummarizer, isCtxwinError, type AgentThread, type CtxwinErrorCode } from "ctxwin";
import { buildContextInjection } from "ctxwin/agent-threads";
import { agentSession, makeThread } from "../support/fixtures.js";

function expectError(fn: () => unknown, type: ErrorConstructor, message: RegExp, code: string) {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toMatch(message);
    expect((error as { code?: string }).code).toBe(code);
    expect(isCtxwinError(error, code as CtxwinErrorCode)).toBe(true);
    return;
  }
  throw new Error("expected an error");
}

async function expectRejection(promise: Promise<unknown>, type: ErrorConstructor, message: RegExp, code: string) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  expect((error as Error).message).toMatch(message);
  expect((error as { code?: string }).code).toBe(code);
  expect(isCtxwinError(error, code as CtxwinErrorCode)).toBe(true);
}

const cm = new ContextManager();
const bad = <T>(value: unknown) => value as T;

describe("bad input", () => {
  it("estimateTokens: non-string text", () => {
    for (const value of [undefined, null, 42, {}, ["a"], Symbol("s"), 1n]) {
      expectError(() => estimateTokens(bad(value)), TypeError, /^text must be a string/, "ERR_CTXWIN_INVALID_ARGUMENT");
      expectError(() => cm.estimateTokens(bad(value)), TypeError, /^text must be a string/, "ERR_CTXWIN_INVALID_ARGUMENT");
    }
  });

  it("config: wrong types and out-of-range values", () => {
    expectError(() => new ContextManager(bad(5)), TypeError, /^config must be an object/, "ERR_CTXWIN_INVALID_ARGUMENT");
    expectError(
      () => new ContextManager({ maxContextTokens: bad("100") }),
      TypeError,
      /config\.maxContextTokens must be a number/,
      "ERR_CTXWIN_INVALID_ARGUMENT",
    );
    for (const value of [-1, 0, NaN, 1.5, Infinity]) {
      expectError(
        () => new ContextManager({ maxContextTokens: value }),
        RangeError,
        /^config\.maxContextTokens must be an integer >= 1/,
        "ERR_CTXWIN_OUT_OF_RANGE",
      );
    }
    for (const value of [-1, NaN, 2.5, -Infinity]) {
      expectError(
        () => new ContextManager({ keepRecentIterations: value }),
        RangeError,
        /^config\.keepRecentIterations must be an integer >= 0/,
        "ERR_CTXWIN_OUT_OF_RANGE",
      );
    }
    expectError(
      () => new ContextManager({ tokenEstimator: bad("chars/4") }),
      TypeError,
      /config\.tokenEstimator must be a function/,
      "ERR_CTXWIN_INVALID_ARGUMENT",
    );
    expectError(() => new ContextManager({ summaryConcurrency: 0 }), RangeError, /config\.summaryConcurrency/, "ERR_CTXWIN_OUT_OF_RANGE");
  });

  it("a tokenEstimator that returns nonsense", () => {
    const broken = new ContextManager({ tokenEstimator: () => NaN });
    expectError(
      () => broken.estimateTokens("x"),
      RangeError,
      /config\.tokenEstimator must return a finite number >= 0, got number NaN for text/,
      "ERR_CTXWIN_OUT_OF_RANGE",
    );
    expectError(
      () => broken.estimateThreadTokens(makeThread(agentSession(1))),
      RangeError,
      /for thread\.events\[0\]/,
      "ERR_CTXWIN_OUT_OF_RANGE",
    );
  });

  it("threads without an events array, or with bad events", () => {
    const calls: Array<(thread: AgentThread) => unknown> = [
      (t) => cm.estimateThreadTokens(t),
      (t) => cm.needsSummarization(t),
      (t) => cm.buildContextInjection(t),
      (t) => buildContextInjection(t),
    ];
    for (const call of calls) {
      expectError(() => call(bad(null)), TypeError, /^thread must be an AgentThread object, got null/, "ERR_CTXWIN_INVALID_THREAD");
      expectError(() => call(bad({ events: "nope" })), TypeError, /^thread\.events must be an array/, "ERR_CTXWIN_INVALID_THREAD");
    }
    expectError(
      () => cm.estimateThreadTokens(makeThread(bad([null]))),
      TypeError,
      /^thread\.events\[0\] must be an event object/,
      "ERR_CTXWIN_INVALID_THREAD",
    );
    const cyclic: Record<string, unknown> = { type: "tool_result", iteration: 1, timestamp: 1, toolCallId: "c" };
    cyclic.result = cyclic;
    expectError(
      () => cm.estimateThreadTokens(makeThread(bad([cyclic]))),
      TypeError,
      /^thread\.events\[0\] cannot be serialized to JSON/,
      "ERR_CTXWIN_INVALID_THREAD",
    );
    expectError(
      () => cm.estimateThreadTokens(makeThread(bad([{ iteration: 1, n: 1n }]))),
      TypeError,
      /BigInt/,
      "ERR_CTXWIN_INVALID_THREAD",
    );
  });

  it("summarize: bad thread, bad iteration values, bad model; the thread is left untouched", async () => {
    await expectRejection(
      cm.summarize(bad(undefined), extractiveSummarizer()),
      TypeError,
      /^thread must be an AgentThread/,
      "ERR_CTXWIN_INVALID_THREAD",
    );
    const events = agentSession(6);
    const thread = makeThread(events);
    const before = structuredClone(thread);
    await expectRejection(
      cm.summarize(makeThread(bad([...events, { type: "message", iteration: NaN }])), extractiveSummarizer()),
      RangeError,
      /^thread\.events\[\d+\]\.iteration must be a finite number, got NaN/,
      "ERR_CTXWIN_INVALID_THREAD",
    );
    await expectRejection(
      cm.summarize(makeThread(bad([...agentSession(1), { type: "message", iteration: "2" }])), extractiveSummarizer()),
      TypeError,
      /^thread\.events\[2\]\.iteration must be a number, got string "2"/,
      "ERR_CTXWIN_INVALID_THREAD",
    );
    for (const model of [undefined, null, 42, "", {}, { invoke: "no" }, [1]]) {
      await expectRejection(
        cm.summarize(thread, bad(model)),
        TypeError,
        /^model must be an AI SDK LanguageModel, a function \(prompt\) => Promise<string>, an object with invoke\(messages\), or extractiveSummarizer\(\)/,
        "ERR_CTXWIN_INVALID_MODEL",
      );
    }
    expect(thread).toEqual(before);
  });

  it("a model that resolves to something other than text falls back to the digest", async () => {
    const thread = makeThread(agentSession(2));
    await new ContextManager({ keepRecentIterations: 1 }).summarize(
      thread,
      bad(async () => 42),
    );
    expect((thread.events[0] as { summary: string }).summary).toMatch(
      /\(summarization failed: model\(prompt\) resolved to number 42, expected a string\)$/,
    );
  });

  it("the extractive summarizer rejects a non-string prompt", () => {
    expectError(() => extractiveSummarizer().summarize(bad(7)), TypeError, /^prompt must be a string/, "ERR_CTXWIN_INVALID_ARGUMENT");
  });
});
