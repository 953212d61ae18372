// A CommonJS program using the installed package: `require("ctxwin")` and each subpath with a
// `require` condition, run by .ci/install-smoke.sh with every Node the package supports. It counts
// and trims through the CommonJS build, then checks that the ESM build (loaded with import())
// gives the same results, and prints one JSON line of them.
"use strict";
const assert = require("node:assert/strict");

// A namespace of a CommonJS module also has `default` and (Node 23+, Deno) "module.exports".
const names = (namespace) => Object.keys(namespace).filter((name) => name !== "default" && name !== "module.exports").sort();

const ctxwin = require("ctxwin");
const { TiktokenCounter, TokenBudgetStrategy, MessageContextManager, ContextLimits, ApproximateCounter, backend } = ctxwin;
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
const manager = new MessageContextManager({ model: "test", limits, counter: new ApproximateCounter(), trimAt: 0.95 });
const warnings = [];
manager.on("warning", (w) => warnings.push(w.message));
manager.addMessage({ role: "user", content: "word ".repeat(850) });
assert.ok(warnings.length > 0, "a warning event");

// Every subpath that has a CommonJS build loads with require and exports what its ESM twin does.
// One whose optional peer is not installed fails to load in both the same way: a ctxwin error
// code, or the peer not found.
// ctxwin/ai-sdk, ctxwin/langchain and ctxwin/langchain-history are ESM-only: they load their optional
// peer with a top-level await (from CommonJS: await import()).
const subpaths = ["ctxwin/cli", "ctxwin/openai-agents", "ctxwin/mastra"];
function failure(error) {
  const code = error && error.code;
  if (typeof code === "string" && code.startsWith("ERR_CTXWIN_")) return code;
  if (code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND") return `peer not installed: ${/'(@?[^/']+(?:\/[^/']+)?)/.exec(error.message)?.[1]}`;
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
  console.log(JSON.stringify({ node: process.versions.node, backend, counts, kept: kept.length, warnings: warnings.length, subpaths: Object.fromEntries(subpaths.map((s) => [s, Array.isArray(loaded[s]) ? loaded[s].length : loaded[s]])) }));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
