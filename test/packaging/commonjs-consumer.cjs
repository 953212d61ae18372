// A CommonJS program using the installed package: `require("ctxwin")` and every subpath of its
// exports, run by .ci/install-smoke.sh with every Node the package supports, in a project without
// the optional frameworks and in one with them. It counts and trims through the CommonJS build,
// then checks that the ESM build (loaded with import()) gives the same results, and prints one
// JSON line of them.
"use strict";
const assert = require("node:assert/strict");

// A namespace of a CommonJS module also has `default` and (Node 23+, Deno) "module.exports"; an ES
// module with a default export loaded by require has `__esModule`.
const names = (namespace) =>
  Object.keys(namespace)
    .filter((name) => name !== "default" && name !== "module.exports" && name !== "__esModule")
    .sort();

const ctxwin = require("ctxwin");
const { TiktokenCounter, MessageContextManager, ContextLimits, backend } = ctxwin;
const { TokenBudgetStrategy } = require("ctxwin/truncation");
const { ApproximateCounter } = require("ctxwin/tokens");
assert.equal(backend, process.env.CTXWIN_BACKEND || backend);

const counter = new TiktokenCounter({ encoding: "o200k_base" });
const texts = ["hello world", "Bonjour, ça va ? Très bien.", "日本語のテキストを数える", "\ud800 lone surrogate"];
const counts = Array.from(counter.countMany(texts));
texts.forEach((text, i) => assert.equal(counter.count(text), counts[i], `count of text ${i}`));

const messages = [{ role: "system", content: "You are terse." }];
for (let i = 0; i < 30; i++) messages.push({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ${"lorem ipsum ".repeat(5)}` });
const kept = new TokenBudgetStrategy().truncate(messages, 300, counter);
assert.equal(kept[0], messages[0]);
assert.ok(counter.countMessages(kept) <= 300);

// The events run on the package's own emitter (no node:events).
const limits = new ContextLimits({ model: "test", maxTokens: 1000, maxOutputTokens: 0, reservedTokens: 0 });
const manager = new MessageContextManager({ model: "test", limits, counter: new ApproximateCounter(), compaction: { trimAt: 0.95 } });
const warnings = [];
manager.on("warning", (w) => warnings.push(w.message));
manager.addMessage({ role: "user", content: "word ".repeat(850) });
assert.ok(warnings.length > 0, "a warning event");

// Every subpath of the package's exports loads with require and exports what its ESM twin does
// (a data module, which is an ES module for every runtime, through require(esm): Node 20.19+).
// One whose optional framework is not installed fails to load in both the same way, with the
// ctxwin error code that names it.
const exportsOf = require("ctxwin/package.json").exports;
const subpaths = Object.keys(exportsOf)
  .filter((key) => key !== "." && key !== "./package.json")
  .map((key) => `ctxwin/${key.slice(2).replace("*", "o200k_base")}`);
assert.ok(
  ["ctxwin/ai-sdk", "ctxwin/langchain", "ctxwin/langchain-history", "ctxwin/data/o200k_base"].every((s) => subpaths.includes(s)),
  `every subpath: ${subpaths}`,
);
/** A subpath that did not load: only the coded error of a missing framework is expected (never Node's bare "cannot find module"). */
function failure(error) {
  const code = error?.code;
  if (typeof code === "string" && code.startsWith("ERR_CTXWIN_")) return code;
  throw error;
}
const loaded = {};
for (const subpath of subpaths) {
  try {
    loaded[subpath] = names(require(subpath));
  } catch (error) {
    loaded[subpath] = failure(error);
  }
}
// The adapters that need their framework at run time: loaded where it is installed (run with
// --frameworks), else the coded error naming it.
const FRAMEWORK_ERRORS = {
  "ctxwin/ai-sdk": "ERR_CTXWIN_AI_SDK_MISSING",
  "ctxwin/langchain": "ERR_CTXWIN_LANGCHAIN_MISSING",
  "ctxwin/langchain-history": "ERR_CTXWIN_LANGCHAIN_MISSING",
};
const withFrameworks = process.argv.includes("--frameworks");
for (const [subpath, code] of Object.entries(FRAMEWORK_ERRORS)) {
  if (withFrameworks)
    assert.ok(Array.isArray(loaded[subpath]) && loaded[subpath].length > 0, `${subpath} loads with require: ${loaded[subpath]}`);
  else assert.equal(loaded[subpath], code, `${subpath} without its framework`);
}
assert.deepEqual(Object.keys(require("ctxwin/package.json")).includes("version"), true);

(async () => {
  const esm = await import("ctxwin");
  assert.deepEqual(names(ctxwin), names(esm), "the same exports from require and import");
  const esmCounter = new esm.TiktokenCounter({ encoding: "o200k_base" });
  assert.deepEqual(Array.from(esmCounter.countMany(texts)), counts, "the same counts from both builds");
  for (const subpath of subpaths) {
    let exported;
    try {
      exported = names(await import(subpath));
    } catch (error) {
      exported = failure(error);
    }
    assert.deepEqual(loaded[subpath], exported, `${subpath}: the same exports from require and import`);
  }
  // With LangChain installed, the history extends the class a program of each module system gets.
  if (Array.isArray(loaded["ctxwin/langchain-history"])) {
    const store = new ctxwin.MemorySessionStore();
    const required = new (require("ctxwin/langchain-history").SessionChatMessageHistory)({ store, id: "cjs" });
    assert.ok(
      required instanceof require("@langchain/core/chat_history").BaseListChatMessageHistory,
      "require: a BaseListChatMessageHistory",
    );
    const imported = new (await import("ctxwin/langchain-history")).SessionChatMessageHistory({
      store: new esm.MemorySessionStore(),
      id: "esm",
    });
    assert.ok(
      imported instanceof (await import("@langchain/core/chat_history")).BaseListChatMessageHistory,
      "import: a BaseListChatMessageHistory",
    );
  }
  console.log(
    JSON.stringify({
      node: process.versions.node,
      backend,
      counts,
      kept: kept.length,
      warnings: warnings.length,
      subpaths: Object.fromEntries(subpaths.map((s) => [s, Array.isArray(loaded[s]) ? loaded[s].length : loaded[s]])),
    }),
  );
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
