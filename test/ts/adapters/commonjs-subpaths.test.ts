// Every subpath of the package loads with `require()` (the `require` export condition: the
// CommonJS build in dist/cjs/) and exports what its `import` twin does, the framework adapters
// included: they load their framework synchronously, with no top-level await. Each build loads the
// framework the way an application of its module system does, so an application and the adapter
// share one copy of it (LangChain's classes, `instanceof`), and a CommonJS adapter uses the same
// core state (the model registry) as `require("ctxwin")`.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);

const manifest = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
  exports: Record<string, unknown>;
};
/** Every export of the package as an application names it: "ctxwin", "ctxwin/ai-sdk", ... ("./data/*" as one of its modules). */
const SUBPATHS = Object.keys(manifest.exports)
  .filter((key) => key !== "./package.json")
  .map((key) => (key === "." ? "ctxwin" : `ctxwin/${key.slice(2).replace("*", "o200k_base")}`));

/** A namespace's names, without what only a CommonJS or a require(esm) namespace has (`__esModule` marks an ES module with a default export loaded by require). */
const names = (namespace: object): string[] =>
  Object.keys(namespace)
    .filter((name) => name !== "default" && name !== "module.exports" && name !== "__esModule")
    .sort();

describe("require() of every subpath", () => {
  it("covers every export of package.json", () => {
    expect(SUBPATHS).toEqual(
      expect.arrayContaining([
        "ctxwin",
        "ctxwin/cli",
        "ctxwin/ai-sdk",
        "ctxwin/langchain",
        "ctxwin/langchain-history",
        "ctxwin/openai-agents",
        "ctxwin/mastra",
        "ctxwin/data/o200k_base",
      ]),
    );
  });

  it.each(SUBPATHS)("%s loads with require and exports what import gives", async (subpath) => {
    const required = require(subpath) as object;
    const imported = (await import(subpath)) as object;
    expect(names(required)).toEqual(names(imported));
    if (subpath.startsWith("ctxwin/data/")) {
      // An ES module for every runtime (no `require` condition), loaded by require(esm): the same
      // table import gives (here the same contents: vitest runs imported modules of the checkout itself).
      expect((required as { default: unknown }).default).toStrictEqual((imported as { default: unknown }).default);
    } else {
      expect(names(required).length).toBeGreaterThan(0);
    }
  });

  it("the adapters' CommonJS build comes from dist/cjs/ (the require condition), not from the ES modules", () => {
    for (const subpath of ["ctxwin/ai-sdk", "ctxwin/langchain", "ctxwin/langchain-history"]) {
      expect(require.resolve(subpath)).toMatch(/[/\\]dist[/\\]cjs[/\\]/);
    }
  });
});

describe("the adapters required from CommonJS", () => {
  it('use the core state of require("ctxwin"): a model registered there is known to them', () => {
    const ctxwin = require("ctxwin") as typeof import("ctxwin");
    ctxwin.registerModel("cjs-registered-model", { contextLength: 5000, maxOutputTokens: 500 });
    const aiSdk = require("ctxwin/ai-sdk") as typeof import("ctxwin/ai-sdk");
    const langchain = require("ctxwin/langchain") as typeof import("ctxwin/langchain");
    expect(aiSdk.contextMiddleware({ model: "cjs-registered-model" }).fitter.limits.maxTokens).toBe(5000);
    expect(langchain.contextMiddleware({ model: "cjs-registered-model" }).fitter.limits.maxTokens).toBe(5000);
  });

  it("ctxwin/langchain-history extends the CommonJS BaseListChatMessageHistory a CommonJS program gets, and stores its messages", async () => {
    const { SessionChatMessageHistory } = require("ctxwin/langchain-history") as typeof import("ctxwin/langchain-history");
    const { MemorySessionStore } = require("ctxwin") as typeof import("ctxwin");
    const { BaseListChatMessageHistory } = require("@langchain/core/chat_history") as typeof import("@langchain/core/chat_history");
    const messages = require("@langchain/core/messages") as typeof import("@langchain/core/messages");
    const history = new SessionChatMessageHistory({ store: new MemorySessionStore(), id: "cjs" });
    expect(history).toBeInstanceOf(BaseListChatMessageHistory);
    await history.addMessages([new messages.HumanMessage("hello"), new messages.AIMessage("hi")]);
    const read = await history.getMessages();
    expect(read.map((m) => [m.getType(), m.content])).toEqual([
      ["human", "hello"],
      ["ai", "hi"],
    ]);
    expect(read[0]).toBeInstanceOf(messages.HumanMessage);
  });

  it("ctxwin/langchain-history imported extends the ESM class an ESM program gets", async () => {
    const { SessionChatMessageHistory } = await import("ctxwin/langchain-history");
    const { MemorySessionStore } = await import("ctxwin");
    const { BaseListChatMessageHistory } = await import("@langchain/core/chat_history");
    expect(new SessionChatMessageHistory({ store: new MemorySessionStore(), id: "esm" })).toBeInstanceOf(BaseListChatMessageHistory);
  });

  it("ctxwin/langchain's trimMessages(options) is a Runnable of the CommonJS @langchain/core and trims", async () => {
    const { trimMessages } = require("ctxwin/langchain") as typeof import("ctxwin/langchain");
    const { getCounter } = require("ctxwin") as typeof import("ctxwin");
    const { Runnable } = require("@langchain/core/runnables") as typeof import("@langchain/core/runnables");
    const { HumanMessage } = require("@langchain/core/messages") as typeof import("@langchain/core/messages");
    const trimmer = trimMessages({ maxTokens: 9, tokenCounter: getCounter("gpt-4o") });
    expect(trimmer).toBeInstanceOf(Runnable);
    const messages = [new HumanMessage("first"), new HumanMessage("second")];
    expect(await trimmer.invoke(messages)).toEqual([messages[1]]);
  });

  it("ctxwin/ai-sdk's contextPrepareStep reads the tools' schemas with the CommonJS `ai`", async () => {
    const { contextPrepareStep } = require("ctxwin/ai-sdk") as typeof import("ctxwin/ai-sdk");
    const ai = require("ai") as typeof import("ai");
    const tools = {
      read_file: ai.tool({
        description: "Reads a file",
        inputSchema: ai.jsonSchema<{ path: string }>({ type: "object", properties: { path: { type: "string" } } }),
      }),
    };
    const step = contextPrepareStep({ model: "gpt-4o", tools, maxOutputTokens: 100 });
    expect(await step({ steps: [], stepNumber: 0, messages: [{ role: "user", content: "hello" }] })).toEqual({});
  });
});
