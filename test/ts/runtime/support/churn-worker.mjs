// One worker of the churn test (worker-churn.test.ts): every family of counter, message managers,
// counting (sync and on the libuv pool), trimming and compacting, in a loop that never ends on
// its own; the parent terminates it, often in the middle of a native call. It says "busy" right
// before its longest synchronous call so that the parent can aim a terminate() at it.
import { parentPort, workerData } from "node:worker_threads";
import { ContextManager, MessageContextManager, TiktokenCounter, ToolResultCompactor, TruncationMode, extractiveSummarizer } from "ctxwin";
import { ApproximateCounter, CachingCounter, ENCODING_NAMES } from "ctxwin/tokens";

const seed = workerData?.seed ?? 1;
let state = seed;
const random = () => {
  state = (state * 1103515245 + 12345) % 2147483648;
  return state / 2147483648;
};

const words = ["alpha", "ß", "日本語の", "テキスト", "const x = f(42);", "\n", "  ", "Привет", "🙂", "\ud800", "don't", "1234567"];
const text = (n) => Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(" ");
const texts = Array.from({ length: 64 }, (_, i) => text(20 + i * 4));
const big = Array.from({ length: 40 }, () => text(4000)); // ~1 MB: split over several pool jobs
const json = JSON.stringify({
  rows: Array.from({ length: 400 }, (_, i) => ({ id: i, name: text(6), tags: [text(2), text(2)] })),
  error: "ENOENT: no such file",
});

function conversation(n) {
  const messages = [];
  for (let i = 0; i < n; i++) {
    const id = `call_${i}`;
    messages.push({ role: "user", content: text(30) });
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `src/m${i}.ts` }) } }],
    });
    messages.push({ role: "tool", tool_call_id: id, content: i % 3 === 0 ? json : text(200) });
    messages.push({ role: "assistant", content: text(40) });
  }
  return messages;
}

function thread(iterations) {
  const events = [];
  for (let i = 1; i <= iterations; i++) {
    events.push({ type: "tool_call", timestamp: i * 3, iteration: i, toolName: "read_file", toolCallId: `c${i}`, args: { path: `f${i}` } });
    events.push({ type: "tool_result", timestamp: i * 3 + 1, iteration: i, toolCallId: `c${i}`, result: text(150) });
  }
  return { id: "t", events, metadata: {}, createdAt: 0, updatedAt: 0 };
}

const modes = Object.values(TruncationMode);
const inFlight = new Set();
const track = (promise) => {
  inFlight.add(promise);
  promise.then(
    () => inFlight.delete(promise),
    () => inFlight.delete(promise),
  );
};

async function round(i) {
  const counters = [new ApproximateCounter(), new CachingCounter(new TiktokenCounter({ encoding: "o200k_base" }))];
  for (const encoding of ENCODING_NAMES) counters.push(new TiktokenCounter({ encoding }));
  for (const counter of counters) {
    counter.count(texts[i % texts.length]);
    counter.countMessages(conversation(2));
    if (typeof counter.countMany === "function") counter.countMany(texts);
    if (typeof counter.countManyAsync === "function") track(counter.countManyAsync(texts));
  }
  const exact = counters[2 + (i % ENCODING_NAMES.length)];
  if (i % 4 === 0) {
    track(exact.countManyAsync(big));
    parentPort.postMessage("busy");
    exact.countMany(big);
  }
  const mode = modes[i % modes.length];
  const manager = new MessageContextManager({
    model: "gpt-4o",
    mode,
    counter: counters[i % counters.length],
    limits: { maxTokens: 6000, maxOutputTokens: 1000, reservedTokens: 0 },
    compaction: { summarizer: extractiveSummarizer(), maxToolResultTokens: 200 },
  });
  for (const message of conversation(12)) manager.addMessage(message);
  manager.truncate();
  track(manager.compactIfNeeded({ threshold: 0.3 }));
  new ToolResultCompactor({ maxResultTokens: 100 }).compactResult(json, exact);
  const spec08 = new ContextManager({ maxContextTokens: 2000, keepRecentIterations: 2 });
  track(spec08.summarize(thread(8), extractiveSummarizer()));
  // Let completions run, but leave some jobs in flight for terminate() to find.
  if (inFlight.size > 32) await Promise.race(inFlight);
  await new Promise((resolve) => setImmediate(resolve));
}

parentPort.postMessage("ready");
for (let i = 0; ; i++) await round(i);
