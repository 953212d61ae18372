// Smoke test of an installed ctxwin, through the public API only: run inside a new project that
// installed the packed tarball. Prints one JSON line of results; install-smoke.sh runs it on both
// backends and requires the two lines to be equal.
import assert from "node:assert/strict";
import { TiktokenCounter, ToolResultCompactor, backend, estimateTokens } from "ctxwin";
import { TokenBudgetStrategy } from "ctxwin/truncation";

const expected = process.env.CTXWIN_BACKEND;
assert.equal(backend, expected, `backend is ${backend}, expected ${expected}`);

const cl100k = new TiktokenCounter({ encoding: "cl100k_base" });
const o200k = new TiktokenCounter({ encoding: "o200k_base" });
assert.equal(cl100k.count("hello world"), 2);
const texts = ["Bonjour, ça va ? Très bien.", "日本語のテキストを数える", "function add(a, b) { return a + b; }"];
const counts = Array.from(o200k.countMany(texts));
assert.deepEqual(Array.from(await o200k.countManyAsync(texts)), counts);
assert.equal(cl100k.decode(cl100k.encode("naïve café 😀")), "naïve café 😀");

// A trim: 40 messages into 300 tokens, the system message kept.
const messages = [{ role: "system", content: "You are terse." }];
for (let i = 0; i < 40; i++) messages.push({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ${"lorem ipsum ".repeat(5)}` });
const kept = new TokenBudgetStrategy().truncate(messages, 300, cl100k);
assert.ok(kept.length > 1 && kept.length < messages.length, `trim kept ${kept.length}`);
assert.equal(kept[0], messages[0]);
assert.ok(cl100k.countMessages(kept) <= 300);

// A compaction: a 5,000-line tool result cut to 200 tokens.
const log = Array.from({ length: 5000 }, (_, i) => `line ${i}: GET /api/items/${i} 200 12ms`).join("\n");
const compacted = new ToolResultCompactor({ maxResultTokens: 200 }).compactResult(log, cl100k);
assert.ok(compacted.length < log.length);
assert.ok(cl100k.count(compacted) <= 200, `compacted to ${cl100k.count(compacted)} tokens`);

console.log(
  JSON.stringify({ counts, kept: kept.length, compactedTokens: cl100k.count(compacted), estimate: estimateTokens("hello world") }),
);
