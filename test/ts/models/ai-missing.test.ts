// Without the optional `ai` package, an AI SDK model is rejected with a clear error before the
// thread is touched; plain functions and the extractive summarizer still work.
import { describe, expect, it, vi } from "vitest";
import { ContextManager, extractiveSummarizer } from "ctxwin";
import { agentSession, makeThread } from "../support/fixtures.js";

vi.mock("ai", () => {
  throw Object.assign(new Error("Cannot find package 'ai'"), { code: "ERR_MODULE_NOT_FOUND" });
});

const languageModel = { specificationVersion: "v3", provider: "p", modelId: "m", doGenerate: async () => ({}) };

describe("without the ai package", () => {
  it("rejects an AI SDK model with ERR_CTXWIN_AI_SDK_MISSING and leaves the thread as it was", async () => {
    const thread = makeThread(agentSession(5));
    const before = structuredClone(thread);
    const error = await new ContextManager({ keepRecentIterations: 1 }).summarize(thread, languageModel).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/needs the `ai` package \(6 or 7\): npm install ai@\^(6|7)$/);
    expect((error as { code?: string }).code).toBe("ERR_CTXWIN_AI_SDK_MISSING");
    expect(thread).toEqual(before);
  });

  it("still summarizes with a function or the extractive summarizer", async () => {
    const a = makeThread(agentSession(3));
    await new ContextManager({ keepRecentIterations: 1 }).summarize(a, async () => "ok");
    expect(a.events[0]).toMatchObject({ type: "summary", summary: "ok" });
    const b = makeThread(agentSession(3));
    await new ContextManager({ keepRecentIterations: 1 }).summarize(b, extractiveSummarizer());
    expect(b.events[0]).toMatchObject({ type: "summary", iteration: 1 });
  });
});
