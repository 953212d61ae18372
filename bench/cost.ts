// Dollars over the 500-turn session of bench/cache-share.ts (two model requests a turn, a
// 48,000-token window), billed through each provider's prompt cache with Claude Sonnet's and
// GPT-4o's catalog prices: ctxwin in token_budget mode with cache-aware timing (trims where they
// pay), the same with the default timing (trims at 80% of the window down to 60%, so that between
// trims every request only grows at its end), the same manager compacting at every threshold crossing
// (trimTo = trimAt: each crossing cuts just below the threshold, so the next crossing comes a turn
// later), and LangChain's trimMessages to the target before every request. All three are billed
// by the same CostLedger: Anthropic with breakpoints at the end of the system prompt and the end
// of the request (ctxwin adds one at its omission marker), 5-minute entries, requests 20 s apart;
// OpenAI automatic. Prompt tokens only: the replies are the same in all three.
import { ContextLimits, MessageContextManager, TiktokenCounter, TruncationMode, resolveModel, type MessageLike } from "ctxwin";
import { CostLedger, cachePricesFor, type CacheProvider, type CostOptions } from "ctxwin/cost";
import { replayTrimMessages, session } from "./cache-share.js";

type Msg = MessageLike & { tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }> };
type Turn = ReturnType<typeof session>[number];

const WINDOW = 48_000;
const SYSTEM = "You are a careful coding agent. Read before you edit, run the tests after every change, and say what you changed.";
const GAP_MS = 20_000;

interface PriceList {
  name: string;
  model: string;
  provider: CacheProvider;
}
const PRICE_LISTS: PriceList[] = [
  { name: "Claude Sonnet 4.5", model: "claude-sonnet-4-5", provider: "anthropic" },
  { name: "GPT-4o", model: "gpt-4o", provider: "openai" },
];

function costOptions(list: PriceList): CostOptions & { now: () => number } {
  const prices = cachePricesFor(resolveModel(list.model)?.prices, list.provider);
  if (prices === undefined) throw new Error(`cost bench: the catalog has no prices for ${list.model}`);
  let clock = 0;
  return { provider: list.provider, prices, minimumPrefix: 1024, now: () => (clock += GAP_MS) };
}

async function runCtxwin(
  turns: Turn[],
  counter: TiktokenCounter,
  list: PriceList,
  trimTo: number,
  compactionTiming: "threshold" | "cache-aware",
) {
  const cm = new MessageContextManager<Msg>({
    model: "gpt-4o",
    counter,
    // token_budget: its trims stop at their target (smart and sliding_window cut this session far
    // below any target), so that trimTo = trimAt is what "compacting at every crossing" means.
    mode: TruncationMode.TOKEN_BUDGET,
    limits: new ContextLimits({ model: "gpt-4o", maxTokens: WINDOW, maxOutputTokens: 0, reservedTokens: 0 }),
    cost: costOptions(list),
    logger: { warn: () => {} },
    compaction: { trimTo, timing: compactionTiming },
  });
  cm.setSystemPrompt(SYSTEM);
  // At trimAt, the agent loop of bench/cache-share.ts compacts before each request (the levels:
  // old tool results cleared down to trimTo, then trims); with cache-aware timing the manager
  // trims by itself as messages are added, where a trim pays.
  const request = async () => {
    if (compactionTiming === "threshold") await cm.compactIfNeeded({ threshold: cm.trimAt });
    cm.getContextForRequest();
  };
  for (const t of turns) {
    cm.addMessage(t.user);
    await request();
    cm.addMessage(t.call);
    cm.addMessage(t.result);
    await request();
    cm.addMessage(t.answer);
  }
  const cost = cm.getStats().cost;
  if (cost === undefined) throw new Error("cost bench: the manager billed nothing");
  return cost.session;
}

/** LangChain's trimMessages to the target before every request, on the whole history, billed by the same ledger. */
async function runTrimMessages(turns: Turn[], counter: TiktokenCounter, list: PriceList) {
  const ledger = new CostLedger("gpt-4o", Math.floor(WINDOW * 0.8), costOptions(list));
  await replayTrimMessages(turns, counter, ({ tokens, sharedMessageTokens, overhead, systemTokens }) => {
    const shared = Math.min(overhead + sharedMessageTokens, tokens);
    ledger.record({ inputTokens: tokens, sharedPrefixTokens: shared, breakpoints: [systemTokens, tokens], fixedTokens: systemTokens });
  });
  return ledger.stats.session;
}

const usd = (x: number) => `$${x.toFixed(2)}`;

export async function benchCost(): Promise<void> {
  const counter = new TiktokenCounter({ model: "gpt-4o" });
  const turns = session();
  console.log(
    `\n### Dollars per session: ${turns.length} tool-using turns (2 requests each), ${WINDOW.toLocaleString("en-US")}-token window, prompt tokens through the provider's cache\n`,
  );
  console.log(
    "| prices | ctxwin, cache-aware timing | cached / written / uncached | ctxwin, trim at 0.8 to 0.6 (default) | compacting at every threshold crossing | trimMessages before every request | no cache at all | cheaper than both baselines |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const list of PRICE_LISTS) {
    const aware = await runCtxwin(turns, counter, list, 0.6, "cache-aware");
    const ours = await runCtxwin(turns, counter, list, 0.6, "threshold");
    const every = await runCtxwin(turns, counter, list, 0.8, "threshold");
    const lc = await runTrimMessages(turns, counter, list);
    const share = (x: number) => `${Math.round((x / aware.inputTokens) * 100)}%`;
    const ratio = (x: number) => `${usd(x)} (${(x / aware.dollars).toFixed(2)}x)`;
    const cheaper = aware.dollars < Math.min(every.dollars, lc.dollars);
    console.log(
      `| ${list.name} | ${usd(aware.dollars)} | ${share(aware.cachedTokens)} / ${share(aware.writtenTokens)} / ${share(aware.uncachedTokens)} | ${ratio(ours.dollars)} | ${ratio(every.dollars)} | ${ratio(lc.dollars)} | ${ratio(aware.noCacheDollars)} | ${cheaper ? "yes" : "NO"} |`,
    );
    if (!cheaper)
      throw new Error(
        `cost bench: ctxwin cost ${aware.dollars} with ${list.name} prices, not below both baselines (${every.dollars}, ${lc.dollars})`,
      );
  }
  console.log(
    "\nRatios against ctxwin with cache-aware timing. Prompt tokens only (the replies are the same in every run); Claude Sonnet 4.5 and GPT-4o prices from the catalog; requests 20 s apart, 5-minute Anthropic entries.",
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCost();
