// Every subpath of the package's exports imported ALONE, in a fresh Node process each, with
// `import` and with `require`, as a program whose only ctxwin import is that subpath: the entry
// loads the core itself (as the root does) and its first use, a call that reaches the core where
// the subpath has one, answers what it should. Run against the checkout by
// test/ts/adapters/subpaths-alone.test.ts and against the installed tarball by .ci/install-smoke.sh.
//
//   node test/packaging/subpaths-alone.mjs [project dir] [--capabilities] [--json]
//
// The project dir (default: the current one) is where "ctxwin" resolves. --capabilities checks
// the root and its capability subpaths only (an install without the adapters' frameworks, where
// ctxwin/ai-sdk and ctxwin/langchain fail with their coded error by design). --json prints every
// result as one JSON object instead of one line per subpath. Exits 1 when one differs.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";

/** A counter with no core of its own: a subpath without a counter of its own counts with it. */
const CHARS = `{ count: (t) => Math.ceil(t.length / 4), countMessages: (ms) => ms.reduce((n, x) => n + Math.ceil(String(x.content).length / 4) + 4, 3) }`;
const LOG = `"line of output\\n".repeat(2000)`;
const TURNS = `Array.from({ length: 10 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: "lorem ipsum ".repeat(20) }))`;

/** What a program does first with each subpath (`m` is its namespace), and what that gives. */
export const FIRST_USE = {
  ctxwin: [`m.getCounter("gpt-4o").count("hello world")`, 2],
  "ctxwin/tokens": [`new m.TiktokenCounter({ encoding: "o200k_base" }).count("hello world")`, 2],
  "ctxwin/models": [`m.resolveModel("gpt-4o").contextWindow`, 128000],
  "ctxwin/budget": [`m.ContextLimits.forModel("gpt-4o").maxTokens`, 128000],
  "ctxwin/truncation": [`new m.TokenBudgetStrategy().truncate(${TURNS}, 200, ${CHARS}).length`, 3],
  "ctxwin/compaction": [`new m.ToolResultCompactor({ maxResultTokens: 50 }).compactResult(${LOG}, ${CHARS}).length < 250`, true],
  "ctxwin/session": [
    `(async () => { const s = new m.MemorySessionStore(); await s.append("s", [{ type: "note" }, { type: "note" }]); return (await s.read("s")).length; })()`,
    2,
  ],
  "ctxwin/cost": [`m.anthropicMinimumPrefix("claude-sonnet-4-5")`, 1024],
  "ctxwin/context": [
    `(() => { const c = new m.MessageContextManager({ model: "gpt-4o" }); c.addMessage({ role: "user", content: "hello world" }); return c.tokenUsage; })()`,
    9,
  ],
  "ctxwin/recall": [
    `(async () => { const r = new m.Recall({ counter: ${CHARS} }); r.remember({ replaced: [], removed: [{ role: "tool", tool_call_id: "c1", content: ${LOG} }] }); const a = await r.read("c1", { maxTokens: 50 }); return a.ok && a.tokens <= 50; })()`,
    true,
  ],
  "ctxwin/report": [
    `m.renderReport([{ type: "message", id: "u", message: { role: "user", content: "hello" } }, { type: "message", id: "a", message: { role: "assistant", content: "hi" } }], { model: "gpt-4o" }).startsWith("<!doctype html>")`,
    true,
  ],
  "ctxwin/agent-threads": [`m.estimateTokens("hello world")`, 4],
  "ctxwin/ai-sdk": [`m.contextMiddleware({ model: "gpt-4o" }).fitter.limits.maxTokens`, 128000],
  "ctxwin/langchain": [`m.contextMiddleware({ model: "gpt-4o" }).fitter.limits.maxTokens`, 128000],
  "ctxwin/openai-agents": [`m.contextInputFilter({ model: "gpt-4o" }).fitter.limits.maxTokens`, 128000],
  "ctxwin/mastra": [`m.contextProcessor({ model: "gpt-4o" }).fitter.limits.maxTokens`, 128000],
  "ctxwin/langchain-history": [`typeof m.SessionChatMessageHistory`, "function"],
  "ctxwin/cli": [
    `m.analyzeContext({ messages: [{ role: "user", content: "hello world" }], tools: [], format: "messages" }, { model: "gpt-4o" }).window`,
    128000,
  ],
  "ctxwin/data/o200k_base": [`typeof m.default`, "object"],
};

/** The adapter subpaths and the CLI: --capabilities leaves them out (commonjs-consumer.cjs covers them there). */
export const ADAPTERS = [
  "ctxwin/ai-sdk",
  "ctxwin/langchain",
  "ctxwin/openai-agents",
  "ctxwin/mastra",
  "ctxwin/langchain-history",
  "ctxwin/cli",
];

/** Every subpath of the package.json's exports as a program imports it ("./data/*" as one table). */
export function subpathsOf(manifest) {
  return Object.keys(manifest.exports)
    .filter((key) => key !== "./package.json")
    .map((key) => (key === "." ? "ctxwin" : `ctxwin/${key.slice(2).replace("*", "o200k_base")}`));
}

/** Runs one subpath's first use in a fresh process: its JSON answer, or the failure. */
export function firstUse(project, subpath, system) {
  const [code] = FIRST_USE[subpath];
  const load = system === "import" ? `await import(${JSON.stringify(subpath)})` : `require(${JSON.stringify(subpath)})`;
  const args = system === "import" ? ["--input-type=module", "-e"] : ["-e"];
  const body = `(async () => { const m = ${load}; console.log(JSON.stringify(await (${code}))); })().catch((e) => { console.error(e && e.code ? e.code + ": " + e.message : e); process.exit(1); });`;
  const result = spawnSync(process.execPath, [...args, body], { cwd: project, encoding: "utf8", env: process.env, timeout: 60_000 });
  if (result.status !== 0)
    return { ok: false, error: (result.stderr || `exit ${result.status}`).trim().split("\n").slice(0, 3).join(" | ") };
  return { ok: true, value: JSON.parse(result.stdout.trim().split("\n").at(-1)) };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const args = process.argv.slice(2);
  const project = resolve(args.find((a) => !a.startsWith("--")) ?? ".");
  const manifest = JSON.parse(readFileSync(createRequire(resolve(project, "package.json")).resolve("ctxwin/package.json"), "utf8"));
  const subpaths = subpathsOf(manifest).filter((s) => !args.includes("--capabilities") || !ADAPTERS.includes(s));
  const results = {};
  let failures = 0;
  for (const subpath of subpaths) {
    if (!(subpath in FIRST_USE)) {
      results[subpath] = { expected: "a first use in test/packaging/subpaths-alone.mjs" };
      failures++;
      continue;
    }
    for (const system of ["import", "require"]) {
      const r = firstUse(project, subpath, system);
      const expected = FIRST_USE[subpath][1];
      const ok = r.ok && JSON.stringify(r.value) === JSON.stringify(expected);
      if (!ok) failures++;
      (results[subpath] ??= { expected })[system] = r.ok ? r.value : r.error;
      if (!args.includes("--json"))
        console.log(
          `  ${ok ? "ok  " : "FAIL"} ${system.padEnd(7)} ${subpath}: ${r.ok ? JSON.stringify(r.value) : r.error}${ok ? "" : ` (expected ${JSON.stringify(expected)})`}`,
        );
    }
  }
  if (args.includes("--json")) console.log(JSON.stringify(results));
  else console.log(`${subpaths.length} subpaths alone, import and require: ${failures === 0 ? "all answered" : `${failures} FAILED`}`);
  process.exit(failures === 0 ? 0 : 1);
}
