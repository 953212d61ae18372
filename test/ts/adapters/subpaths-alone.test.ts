// Every Node subpath imported alone, as a new user's first program does (docs/frameworks.md's first
// Mastra snippet imports only "ctxwin/mastra"), in a fresh process, with `import` and `require`:
// each entry loads the core itself, as the root entry does, and the first call that needs it works.
// In the test's own process the root entry is always loaded already, so this runs node anew.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const checkout = fileURLToPath(new URL("../../..", import.meta.url));
const manifest = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { exports: Record<string, unknown> };

/** What a program does first with each subpath: a call that reaches the core, printing one JSON value. */
const FIRST_USE: Record<string, string> = {
  ctxwin: `JSON.stringify(m.getCounter("gpt-4o").count("hello world"))`,
  "ctxwin/ai-sdk": `JSON.stringify(m.contextMiddleware({ model: "gpt-4o" }).fitter.limits.maxTokens)`,
  "ctxwin/langchain": `JSON.stringify(m.contextMiddleware({ model: "gpt-4o" }).fitter.limits.maxTokens)`,
  "ctxwin/openai-agents": `JSON.stringify(m.contextInputFilter({ model: "gpt-4o" }).fitter.limits.maxTokens)`,
  "ctxwin/mastra": `JSON.stringify(m.contextProcessor({ model: "gpt-4o" }).fitter.limits.maxTokens)`,
  "ctxwin/langchain-history": `JSON.stringify(typeof m.SessionChatMessageHistory)`,
  "ctxwin/cli": `JSON.stringify(m.analyzeContext({ messages: [{ role: "user", content: "hello world" }], tools: [], format: "messages" }, { model: "gpt-4o" }).window)`,
  "ctxwin/data/o200k_base": `JSON.stringify(typeof m.default)`,
};

const EXPECTED: Record<string, unknown> = {
  ctxwin: 2,
  "ctxwin/ai-sdk": 128000,
  "ctxwin/langchain": 128000,
  "ctxwin/openai-agents": 128000,
  "ctxwin/mastra": 128000,
  "ctxwin/langchain-history": "function",
  "ctxwin/cli": 128000,
  "ctxwin/data/o200k_base": "object",
};

const SUBPATHS = Object.keys(manifest.exports)
  .filter((key) => key !== "./package.json")
  .map((key) => (key === "." ? "ctxwin" : `ctxwin/${key.slice(2).replace("*", "o200k_base")}`));

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, args, { cwd: checkout, encoding: "utf8", env: process.env, timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("each Node subpath imported alone in a fresh process", () => {
  it("covers every export of package.json", () => {
    expect(Object.keys(FIRST_USE).sort()).toEqual([...SUBPATHS].sort());
  });

  it.each(SUBPATHS)("%s works with import alone", (subpath) => {
    const result = run(["--input-type=module", "-e", `const m = await import(${JSON.stringify(subpath)}); console.log(${FIRST_USE[subpath]});`]);
    expect(result.stderr).not.toMatch(/ERR_CTXWIN_NOT_INITIALIZED/);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout.trim().split("\n").at(-1)!)).toEqual(EXPECTED[subpath]);
  });

  it.each(SUBPATHS)("%s works with require alone", (subpath) => {
    const result = run(["-e", `const m = require(${JSON.stringify(subpath)}); console.log(${FIRST_USE[subpath]});`]);
    expect(result.stderr).not.toMatch(/ERR_CTXWIN_NOT_INITIALIZED/);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout.trim().split("\n").at(-1)!)).toEqual(EXPECTED[subpath]);
  });
});
