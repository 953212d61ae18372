// ctxwin/mastra's recall tool where @mastra/core is not installed, as here (Mastra needs Node 22;
// its loop runs in test/compat/node22/mastra-recall.test.ts): the subpath loads and its processor
// works, and only recallTool, which makes a Mastra tool, fails, with the code and the command that
// installs Mastra rather than Node's bare ERR_MODULE_NOT_FOUND.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { Recall, getCounter } from "ctxwin";
import { contextProcessor, recallTool } from "ctxwin/mastra";

describe("ctxwin/mastra recallTool without @mastra/core", () => {
  it("rejects with ERR_CTXWIN_MASTRA_MISSING naming the install command; the processor still works", async () => {
    expect(() => createRequire(import.meta.url).resolve("@mastra/core/tools")).toThrow();
    const recall = new Recall({ counter: getCounter("gpt-4o") });
    const error = await recallTool(recall).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      name: "CtxwinError",
      code: "ERR_CTXWIN_MASTRA_MISSING",
      message: "ctxwin/mastra needs `@mastra/core` (version 1): npm install @mastra/core@^1",
    });
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect(contextProcessor({ model: "gpt-4o" }).id).toBe("ctxwin-context");
  });

  it("checks its argument before loading Mastra: the same coded TypeError as the other adapters", async () => {
    await expect(recallTool({} as Recall)).rejects.toMatchObject({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" });
  });
});
