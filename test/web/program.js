// The program every runtime runs, as a user writes it: the package's root API and its data
// modules, `await init()` first (on Node it resolves at once). It counts the texts with two
// OpenAI encodings, a Claude family and the estimate, counts them as a chat, and trims a
// MessageContextManager holding them, and the chat with a strategy of the subpath
// `ctxwin/truncation` (a capability subpath under the runtime's condition, on the core the root's
// init() loaded); the harness compares the answer with Node's.
import { ClaudeCounter, MessageContextManager, TiktokenCounter, backend, estimateTokens, getCounter, init } from "ctxwin";
import { TokenBudgetStrategy } from "ctxwin/truncation";
import cl100kBase from "ctxwin/data/cl100k_base";
import claudeV47 from "ctxwin/data/claude-v4.7";
import o200kBase from "ctxwin/data/o200k_base";

/** `start`: when the runtime began to load this program (performance.now() scale), for the cold start. */
export async function run(texts, { wasm, start } = {}) {
  await init({ data: [o200kBase, cl100kBase, claudeV47], ...(wasm === undefined ? {} : { wasm }) });
  const o200k = getCounter("gpt-4o");
  const first = o200k.count("hello world");
  const coldStartMs = start === undefined ? undefined : performance.now() - start;
  const cl100k = new TiktokenCounter({ encoding: "cl100k_base" });
  const claude = new ClaudeCounter({ model: "claude-opus-4-7" });
  const messages = texts.map((content, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content }));
  const manager = new MessageContextManager({ model: "gpt-4o", compaction: { autoTruncate: false } });
  manager.setSystemPrompt("You are a careful assistant.");
  for (const message of messages) manager.addMessage(message);
  const before = manager.tokenUsage;
  const trim = manager.truncate(Math.floor(before / 3));
  return {
    backend,
    first,
    o200k: Array.from(o200k.countMany(texts)),
    cl100k: Array.from(cl100k.countMany(texts)),
    claude: texts.map((text) => claude.count(text)),
    estimate: texts.map((text) => estimateTokens(text)),
    messages: { o200k: o200k.countMessages(messages), cl100k: cl100k.countMessages(messages), claude: claude.countMessages(messages) },
    strategy: new TokenBudgetStrategy().truncate(messages, Math.floor(before / 3), o200k).length,
    trim: {
      before,
      after: manager.tokenUsage,
      kept: trim?.kept,
      removed: trim?.removed.length,
      first: manager.getMessages()[0]?.content.length,
    },
    coldStartMs,
  };
}
