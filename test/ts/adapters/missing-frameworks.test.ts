// The frameworks are optional peer dependencies: a subpath that needs its framework at run time,
// loaded without it, fails with an error whose code names the package and whose message ends with
// the command that installs it, not Node's bare "cannot find module" from inside the adapter. The
// error comes while the subpath loads, the same from `import` (the ESM build) and from `require`
// (the CommonJS build). The main entry point and the subpaths that need nothing of their framework
// at run time still load. Each case runs a program in a project where the framework is not
// installed (support/without-packages.ts).
import { afterAll, describe, expect, it } from "vitest";
import { projectWithout, type ScratchProject } from "../support/without-packages.js";

/** A CommonJS program that loads `subpaths` with require, then with import(), runs `then` on each loaded pair, and prints what happened as JSON. */
function program(subpaths: readonly string[], then = ""): string {
  return `"use strict";
const outcome = (load) => { try { const m = load(); return m instanceof Promise ? m.then((v) => ({ loaded: v }), (e) => ({ code: e.code, message: e.message })) : { loaded: m }; } catch (e) { return { code: e.code, message: e.message }; } };
(async () => {
  const result = {};
  for (const subpath of ${JSON.stringify(subpaths)}) {
    const required = outcome(() => require(subpath));
    const imported = await outcome(() => import(subpath));
    const pair = { require: required, import: imported };
    ${then}
    for (const side of Object.values(pair)) if (side.loaded) side.loaded = Object.keys(side.loaded).length > 0;
    result[subpath] = pair;
  }
  console.log(JSON.stringify(result));
})().catch((e) => { console.error(e); process.exit(1); });
`;
}

type Side = { loaded?: unknown; code?: string; message?: string; [key: string]: unknown };
const run = (project: ScratchProject, subpaths: readonly string[], then?: string): Record<string, { require: Side; import: Side }> =>
  JSON.parse(project.runCommonJs(program(subpaths, then))) as Record<string, { require: Side; import: Side }>;

const projects: ScratchProject[] = [];
const without = (...hidden: string[]): ScratchProject => {
  const project = projectWithout(hidden);
  projects.push(project);
  return project;
};
afterAll(() => projects.forEach((p) => p.remove()));

describe("adapter subpaths without their framework, from import and from require", () => {
  it("ctxwin/ai-sdk without `ai` throws ERR_CTXWIN_AI_SDK_MISSING; ctxwin and ctxwin/openai-agents (without @openai/agents) still load", () => {
    const result = run(without("ai", "@openai/agents"), ["ctxwin/ai-sdk", "ctxwin", "ctxwin/openai-agents"]);
    // The command installs the major this Node runs: ai 7 requires Node 22 or later.
    const major = Number(process.versions.node.split(".")[0]) >= 22 ? 7 : 6;
    const missing = {
      code: "ERR_CTXWIN_AI_SDK_MISSING",
      message: `ctxwin/ai-sdk needs the \`ai\` package (6 or 7): npm install ai@^${major}`,
    };
    expect(result["ctxwin/ai-sdk"]).toEqual({ require: missing, import: missing });
    expect(result["ctxwin"]).toEqual({ require: { loaded: true }, import: { loaded: true } });
    expect(result["ctxwin/openai-agents"]).toEqual({ require: { loaded: true }, import: { loaded: true } });
  });

  it("ctxwin/langchain loads with @langchain/core alone and trims; only contextMiddleware, which needs `langchain`, throws ERR_CTXWIN_LANGCHAIN_MISSING", () => {
    const then = `
    for (const side of Object.values(pair)) {
      if (!side.loaded) continue;
      const { HumanMessage } = require("@langchain/core/messages");
      const { getCounter } = require("ctxwin");
      const messages = [new HumanMessage("first"), new HumanMessage("second")];
      side.kept = (await side.loaded.trimMessages(messages, { maxTokens: 9, tokenCounter: getCounter("gpt-4o") })).map((m) => m.content);
      side.middleware = outcome(() => side.loaded.contextMiddleware({ model: "gpt-4o" }));
    }`;
    const result = run(without("langchain"), ["ctxwin/langchain"], then);
    const middleware = {
      code: "ERR_CTXWIN_LANGCHAIN_MISSING",
      message: "contextMiddleware of ctxwin/langchain needs `langchain` (version 1): npm install langchain@^1",
    };
    const side = { loaded: true, kept: ["second"], middleware };
    expect(result["ctxwin/langchain"]).toEqual({ require: side, import: side });
  });

  it("without @langchain/core, ctxwin/langchain and ctxwin/langchain-history throw ERR_CTXWIN_LANGCHAIN_MISSING naming it; ctxwin still counts", () => {
    const then = `if (subpath === "ctxwin") for (const side of Object.values(pair)) side.count = side.loaded.getCounter("gpt-4o").countMessages([{ role: "user", content: "hi" }]) > 0;`;
    const result = run(without("@langchain/core", "langchain"), ["ctxwin/langchain", "ctxwin/langchain-history", "ctxwin"], then);
    for (const subpath of ["ctxwin/langchain", "ctxwin/langchain-history"]) {
      const missing = {
        code: "ERR_CTXWIN_LANGCHAIN_MISSING",
        message: `${subpath} needs \`@langchain/core\` (version 1): npm install @langchain/core@^1`,
      };
      expect(result[subpath]).toEqual({ require: missing, import: missing });
    }
    expect(result["ctxwin"]).toEqual({ require: { loaded: true, count: true }, import: { loaded: true, count: true } });
  });
});
