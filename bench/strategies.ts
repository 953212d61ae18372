// Truncation side by side with LangChain's trimMessages on the same histories and the same cached
// counts, and the cost of adding a message to a managed history with exact counting.
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages, type BaseMessage } from "@langchain/core/messages";
import { MessageContextManager, TiktokenCounter, type MessageLike, type TokenCounter } from "ctxwin";
import {
  SelectiveTruncationStrategy,
  SlidingWindowStrategy,
  SmartTruncationStrategy,
  TokenBudgetStrategy,
  CompositeStrategy,
  type TruncationStrategy,
} from "ctxwin/truncation";
import { consume, formatTime } from "./harness.js";

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
      // Each sample trims a freshly loaded manager (loaded outside the timed region).
      const times = Array.from({ length: 9 }, () => {
        const cm = load();
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

  // Adding a 1 KB message to a managed history, counted exactly.
  const cm = new MessageContextManager({
    model: "gpt-4o",
    counter: new TiktokenCounter({ model: "gpt-4o" }),
    compaction: { autoTruncate: false },
  });
  const kb = "The agent read the file and found that the exporter parses due dates in UTC. ".repeat(13).slice(0, 1024);
  let i = 0;
  const perAdd = time(() => cm.addMessage({ role: i++ % 2 ? "assistant" : "user", content: `${i} ${kb}` }), 300);
  console.log(
    `\nMessageContextManager.addMessage, 1 KB message, exact o200k_base counting: ${formatTime(perAdd)} per message (${cm.getMessages().length.toLocaleString("en-US")} messages by the end)`,
  );
}
