// ctxwin/langchain without @langchain/core: an error whose code names LangChain and whose message
// ends with the command that installs it, not Node's ERR_MODULE_NOT_FOUND; the main entry point,
// which reads LangChain messages by their shape, loads without it.
import { describe, expect, it, vi } from "vitest";

vi.mock("@langchain/core/messages", () => {
  throw Object.assign(new Error("Cannot find package '@langchain/core'"), { code: "ERR_MODULE_NOT_FOUND" });
});

describe("ctxwin/langchain without @langchain/core", () => {
  it("throws ERR_CTXWIN_LANGCHAIN_MISSING naming the one package it needs", async () => {
    const error = await import("ctxwin/langchain").then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ code: "ERR_CTXWIN_LANGCHAIN_MISSING", message: "ctxwin/langchain needs `@langchain/core` (version 1): npm install @langchain/core@^1" });
  });

  it("leaves ctxwin itself loading and counting", async () => {
    const { getCounter } = await import("ctxwin");
    expect(getCounter("gpt-4o").countMessages([{ role: "user", content: "hi" }])).toBeGreaterThan(0);
  });
});
