// The frameworks are optional peer dependencies: a subpath that needs its framework at run time,
// imported without it, fails with an error whose code names the package; the main entry point and
// ctxwin/openai-agents (which needs nothing of its SDK at run time) still load.
import { describe, expect, it, vi } from "vitest";

// vi.mock is hoisted above everything else in the file: each factory stands alone.
vi.mock("ai", () => {
  throw Object.assign(new Error("Cannot find package 'ai'"), { code: "ERR_MODULE_NOT_FOUND" });
});
vi.mock("langchain", () => {
  throw Object.assign(new Error("Cannot find package 'langchain'"), { code: "ERR_MODULE_NOT_FOUND" });
});
vi.mock("@langchain/core/chat_history", () => {
  throw Object.assign(new Error("Cannot find package '@langchain/core'"), { code: "ERR_MODULE_NOT_FOUND" });
});
vi.mock("@openai/agents", () => {
  throw Object.assign(new Error("Cannot find package '@openai/agents'"), { code: "ERR_MODULE_NOT_FOUND" });
});

describe("adapter subpaths without their framework", () => {
  it("ctxwin/ai-sdk throws ERR_CTXWIN_AI_SDK_MISSING", async () => {
    const error = await import("ctxwin/ai-sdk").then(() => undefined, (e: unknown) => e);
    // The command installs the major this Node runs: ai 7 requires Node 22 or later.
    const major = Number(process.versions.node.split(".")[0]) >= 22 ? 7 : 6;
    expect(error).toMatchObject({ code: "ERR_CTXWIN_AI_SDK_MISSING", message: `ctxwin/ai-sdk needs the \`ai\` package (6 or 7): npm install ai@^${major}` });
  });

  it("ctxwin/langchain loads with @langchain/core alone; only contextMiddleware, which needs `langchain`, throws ERR_CTXWIN_LANGCHAIN_MISSING", async () => {
    const adapter = await import("ctxwin/langchain");
    const { getCounter } = await import("ctxwin");
    const { HumanMessage } = await import("@langchain/core/messages");
    const messages = [new HumanMessage("first"), new HumanMessage("second")];
    const kept = await adapter.trimMessages(messages, { maxTokens: 9, tokenCounter: getCounter("gpt-4o") });
    expect(kept).toHaveLength(1);
    expect(kept[0]).toBe(messages[1]);
    expect(() => adapter.contextMiddleware({ model: "gpt-4o" })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_LANGCHAIN_MISSING", message: "contextMiddleware of ctxwin/langchain needs `langchain` (version 1): npm install langchain@^1" }),
    );
  });

  it("ctxwin/langchain-history without @langchain/core throws ERR_CTXWIN_LANGCHAIN_MISSING, not ERR_MODULE_NOT_FOUND", async () => {
    const error = await import("ctxwin/langchain-history").then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ code: "ERR_CTXWIN_LANGCHAIN_MISSING", message: "ctxwin/langchain-history needs `@langchain/core` (version 1): npm install @langchain/core@^1" });
  });

  it("ctxwin and ctxwin/openai-agents still load", async () => {
    const main = await import("ctxwin");
    expect(typeof main.MessageContextManager).toBe("function");
    const agents = await import("ctxwin/openai-agents");
    expect(typeof agents.ContextSession).toBe("function");
    expect(typeof agents.contextInputFilter({ model: "gpt-4o" })).toBe("function");
  });
});
