// Truncation side by side with LangChain's trimMessages on the same histories and the same cached
// counts, and the cost of adding distinct messages to a managed history with exact counting.
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages, type BaseMessage } from "@langchain/core/messages";
import { MessageContextManager, TiktokenCounter, getCounter, type MessageLike, type TokenCounter } from "ctxwin";
import {
  SelectiveTruncationStrategy,
  SlidingWindowStrategy,
  SmartTruncationStrategy,
  TokenBudgetStrategy,
  CompositeStrategy,
  type TruncationStrategy,
} from "ctxwin/truncation";
import { consume, formatTime } from "./harness.js";
import { read } from "./tokenizers.js";

type Msg = MessageLike & { tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }> };

function history(n: number): Msg[] {
  const out: Msg[] = [{ role: "system", content: "You are a careful coding agent." }];
  for (let i = 0; out.length < n; i++) {
    out.push({ role: "user", content: `Step ${i}: look at src/module${i}.ts and tell me what it does.` });
    if (i % 3 === 0) {
      out.push({
        role: "assistant",
        content: null,
        tool_calls: [{ id: `c${i}`, type: "function", function: { name: "read_file", arguments: `{"path":"src/module${i}.ts"}` } }],
      });
      out.push({ role: "tool", tool_call_id: `c${i}`, content: `export const value${i} = compute(${i});\n`.repeat(1 + (i % 20)) });
    }
    out.push({ role: "assistant", content: `Module ${i} computes a value from its input and exports it.` });
  }
  return out.slice(0, n);
}

function toLangChain(messages: Msg[]): BaseMessage[] {
  return messages.map((m) => {
    if (m.role === "system") return new SystemMessage(m.content as string);
    if (m.role === "user") return new HumanMessage(m.content as string);
    if (m.role === "tool") return new ToolMessage({ content: m.content as string, tool_call_id: m.tool_call_id as string });
    return new AIMessage({
      content: (m.content as string | null) ?? "",
      tool_calls: (m.tool_calls ?? []).map((c) => ({
        id: c.id,
        name: c.function.name,
        args: JSON.parse(c.function.arguments) as Record<string, unknown>,
      })),
    });
  });
}

/** Counts looked up per message object: both libraries get the same cached exact counts. */
function cachedCounts(messages: Msg[], lc: BaseMessage[]) {
  const exact = new TiktokenCounter({ encoding: "o200k_base" });
  const perMessage = exact.countEachMessage(messages);
  const byMessage = new WeakMap<object, number>();
  messages.forEach((m, i) => byMessage.set(m, perMessage[i] as number));
  lc.forEach((m, i) => byMessage.set(m, perMessage[i] as number));
  const counter: TokenCounter & { countEachMessage(ms: readonly MessageLike[]): Uint32Array } = {
    count: (text) => exact.count(text),
    countMessages: (ms) => ms.reduce((sum, m) => sum + (byMessage.get(m) ?? 0), 0),
    countEachMessage: (ms) => Uint32Array.from(ms, (m) => byMessage.get(m) ?? 0),
  };
  const lcCounter = (ms: BaseMessage[]) => ms.reduce((sum, m) => sum + (byMessage.get(m) ?? 0), 0);
  const total = perMessage.reduce((a, b) => a + b, 0);
  return { counter, lcCounter, total };
}

function time(run: () => void, minMs = 200): number {
  // Start every case with a collected heap (npm run bench passes --expose-gc): otherwise a major
  // collection of the previous case's garbage lands in whichever case runs next.
  (globalThis as { gc?: () => void }).gc?.();
  run(); // warm-up
  let n = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  do {
    run();
    n++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  } while (elapsed < minMs);
  return (elapsed * 1e6) / n; // ns per run
}

async function timeAsync(run: () => Promise<void>, maxRuns: number): Promise<number> {
  await run();
  const start = process.hrtime.bigint();
  for (let i = 0; i < maxRuns; i++) await run();
  return Number(process.hrtime.bigint() - start) / maxRuns;
}

export async function benchStrategies(): Promise<void> {
  const strategies: Array<[string, TruncationStrategy]> = [
    ["TokenBudgetStrategy", new TokenBudgetStrategy()],
    ["SlidingWindowStrategy (window 50)", new SlidingWindowStrategy({ windowSize: 50 })],
    ["SmartTruncationStrategy (2 + 10)", new SmartTruncationStrategy()],
    ["SelectiveTruncationStrategy", new SelectiveTruncationStrategy()],
    ["CompositeStrategy (smart, budget)", new CompositeStrategy([new SmartTruncationStrategy(), new TokenBudgetStrategy()])],
  ];
  console.log("\n### Truncation: cached counts, target = half the history (plan through the public API)\n");
  console.log("| strategy | 100 messages | 1,000 | 10,000 |");
  console.log("|---|---|---|---|");
  const sizes = [100, 1000, 10000];
  const data = sizes.map((n) => {
    const messages = history(n);
    const lc = toLangChain(messages);
    return { n, messages, lc, ...cachedCounts(messages, lc) };
  });
  for (const [name, strategy] of strategies) {
    const cells = data.map((d) =>
      formatTime(time(() => consume(strategy.plan(d.messages, Math.floor(d.total / 2), d.counter).kept.length))),
    );
    console.log(`| ${name} | ${cells.join(" | ")} |`);
  }

  // The manager keeps each message's metadata as it is added: a trim is one call into the core.
  for (const [name, strategy] of strategies) {
    const managerCells = data.map((d) => {
      const load = () => {
        const cm = new MessageContextManager({
          model: "m",
          counter: d.counter,
          limits: { contextLength: 10_000_000, maxOutputTokens: 0, reservedTokens: 0 },
          compaction: { strategy, autoTruncate: false },
        });
        cm.load(d.messages);
        return cm;
      };
      // Each sample trims a freshly loaded manager (loaded outside the timed region), on a heap
      // collected as time() collects it: the garbage of the load is not the trim's to pay for.
      const times = Array.from({ length: 9 }, () => {
        const cm = load();
        (globalThis as { gc?: () => void }).gc?.();
        const start = process.hrtime.bigint();
        consume(cm.truncate(Math.floor(d.total / 2))?.kept ?? 0);
        return Number(process.hrtime.bigint() - start);
      }).sort((a, b) => a - b);
      return formatTime(times[4] as number);
    });
    console.log(`| MessageContextManager.truncate with ${name} | ${managerCells.join(" | ")} |`);
  }

  console.log('\n### Against LangChain trimMessages (strategy "last", same history, same cached counts)\n');
  console.log("| messages | ctxwin TokenBudgetStrategy (startOn user) | @langchain/core trimMessages | ctxwin is |");
  console.log("|---|---|---|---|");
  const ours = new TokenBudgetStrategy({ startOn: "user" });
  for (const n of [100, 1000, 4000]) {
    const d =
      data.find((x) => x.n === n) ??
      (() => {
        const messages = history(n);
        const lc = toLangChain(messages);
        return { n, messages, lc, ...cachedCounts(messages, lc) };
      })();
    const target = Math.floor(d.total / 2);
    const mine = time(() => consume(ours.plan(d.messages, target, d.counter).kept.length));
    const theirs = await timeAsync(
      async () => {
        const kept = await trimMessages(d.lc, {
          maxTokens: target,
          tokenCounter: d.lcCounter,
          strategy: "last",
          startOn: "human",
          includeSystem: true,
          allowPartial: false,
        });
        consume(kept.length);
      },
      n >= 4000 ? 1 : n >= 1000 ? 3 : 20,
    );
    console.log(`| ${n.toLocaleString("en-US")} | ${formatTime(mine)} | ${formatTime(theirs)} | ${(theirs / mine).toFixed(0)}x faster |`);
  }

  benchAddMessage();
}

/**
 * Adding distinct 1 KB messages (the corpus's prose and code, each text once) to a managed history,
 * counted exactly, with TiktokenCounter and with the counter a manager gets by default
 * (getCounter: a CachingCounter around it). The managers take the same messages in blocks of 50,
 * in turn, the order rotating, so that each counts first (its pieces unseen) as often as the other.
 */
function benchAddMessage(): void {
  const text = read("prose.txt.xz") + read("code.txt.xz");
  const texts: string[] = [];
  for (let i = 0; i + 1024 <= text.length && texts.length < 12_000; i += 1024) texts.push(text.slice(i, i + 1024));
  const counters: Array<[string, TokenCounter]> = [
    ["TiktokenCounter", new TiktokenCounter({ model: "gpt-4o" })],
    ['getCounter("gpt-4o") (CachingCounter)', getCounter("gpt-4o")],
  ];
  const managers = counters.map(
    ([, counter]) => new MessageContextManager({ model: "gpt-4o", counter, compaction: { autoTruncate: false } }),
  );
  TiktokenCounter.clearPieceCaches();
  (globalThis as { gc?: () => void }).gc?.();
  const block = 50;
  const warmUp = 1_000; // JIT and the first pieces; timed from there on
  const elapsed = counters.map(() => 0);
  let timed = 0;
  for (let b = 0; b * block < texts.length; b++) {
    const from = b * block;
    const to = Math.min(texts.length, from + block);
    for (let k = 0; k < managers.length; k++) {
      const which = (k + b) % managers.length;
      const manager = managers[which] as MessageContextManager;
      const start = process.hrtime.bigint();
      for (let i = from; i < to; i++) manager.addMessage({ role: i % 2 ? "assistant" : "user", content: texts[i] as string });
      if (from >= warmUp) elapsed[which] = (elapsed[which] as number) + Number(process.hrtime.bigint() - start);
    }
    if (from >= warmUp) timed += to - from;
  }
  console.log(
    `\nMessageContextManager.addMessage, distinct 1 KB messages (prose and code of the corpus), exact o200k_base counting, ${timed.toLocaleString("en-US")} messages each:`,
  );
  counters.forEach(([name], k) => console.log(`- ${name}: ${formatTime((elapsed[k] as number) / timed)} per message`));
}
