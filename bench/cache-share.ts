// Cacheable share of prompt tokens over a long tool-using session that trims (DESIGN.md budget:
// >= 85%). Providers cache a request's prefix: the tokens a request shares with the one before it
// are read from the cache. A deterministic 500-turn session (a user message, a tool call and its
// result, an answer: two model requests per turn) runs on a 48,000-token window in every mode;
// side by side, the same session trimmed to its target at every request, as LangChain's
// trimMessages in an agent loop does, and ctxwin's own strategy without hysteresis (trimTo = trimAt).
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages, type BaseMessage } from "@langchain/core/messages";
import { ContextLimits, MessageContextManager, TiktokenCounter, TruncationMode, extractiveSummarizer, type MessageLike } from "ctxwin";

type Msg = MessageLike & { tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }> };

const WINDOW = 48_000;
const TURNS = 500;
const SYSTEM = "You are a careful coding agent. Read before you edit, run the tests after every change, and say what you changed.";

/** A deterministic pseudo-random sequence (a linear congruential generator). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

interface Turn {
  user: Msg;
  call: Msg;
  result: Msg;
  answer: Msg;
}

/** The session: every turn reads, searches, edits or tests a file of a repository. */
export function session(turns = TURNS): Turn[] {
  const next = random(14);
  const tools = ["read_file", "search_code", "edit_file", "run_tests"] as const;
  const out: Turn[] = [];
  for (let i = 0; i < turns; i++) {
    const file = `src/module${Math.floor(next() * 120)}.ts`;
    const tool = tools[Math.floor(next() * tools.length)] as (typeof tools)[number];
    const lines = 10 + Math.floor(next() * 70); // results of 126 to 1,824 tokens
    const id = `call_${i}`;
    const args =
      tool === "search_code"
        ? { query: `export function step${i}` }
        : tool === "run_tests"
          ? { filter: `module${i % 40}` }
          : { path: file };
    const body =
      tool === "run_tests"
        ? `> vitest run ${args.filter ?? ""}\n${" ✓ test/case.test.ts > keeps case\n".repeat(lines)}Tests  0 failed | ${lines} passed (${lines})\n`
        : Array.from(
            { length: lines },
            (_, k) => `export function step${i}_${k}(input: Invoice): number { return input.total * ${k} + ${i}; }`,
          ).join("\n");
    out.push({
      user: {
        role: "user",
        content: `Turn ${i}: look at ${file} and ${["fix the rounding", "explain the export", "add a test", "rename the helper"][i % 4]} (${"details ".repeat(5 + Math.floor(next() * 30))}).`,
      },
      call: {
        role: "assistant",
        content: null,
        tool_calls: [{ id, type: "function", function: { name: tool, arguments: JSON.stringify(args) } }],
      },
      result: { role: "tool", tool_call_id: id, content: body },
      answer: {
        role: "assistant",
        content: `Done with turn ${i}: ${"the change is small and tested ".repeat(2 + Math.floor(next() * 8))}`,
      },
    });
  }
  return out;
}

interface Outcome {
  share: number;
  requests: number;
  trims: number;
  largest: number;
  /** At the end: the summaries a compaction wrote, their tokens, and the history's (ctxwin's runs). */
  summaries?: { count: number; tokens: number; history: number };
}

/** The manager's default trimAt and trimTo (what a manager made without them uses). */
const DEFAULTS = new MessageContextManager({ model: "gpt-4o", limits: { maxTokens: WINDOW } });

async function runCtxwin(turns: Turn[], mode: TruncationMode, counter: TiktokenCounter, trimTo: number | undefined): Promise<Outcome> {
  const cm = new MessageContextManager<Msg>({
    model: "gpt-4o",
    counter,
    mode,
    limits: new ContextLimits({ model: "gpt-4o", maxTokens: WINDOW, maxOutputTokens: 0, reservedTokens: 0 }),
    logger: { warn: () => {} },
    compaction: {
      summarizer: mode === TruncationMode.SUMMARIZE ? extractiveSummarizer() : undefined,
      trimTo,
    },
  });
  let trims = 0;
  cm.on("trimmed", () => trims++);
  cm.on("compacted", (r) => (trims += r.levels.some((l) => l.applied && l.messagesChanged > 0) ? 1 : 0));
  cm.setSystemPrompt(SYSTEM);
  let largest = 0;
  const request = async () => {
    await cm.compactIfNeeded({ threshold: cm.trimAt }); // joins a compaction addMessage started
    cm.getContextForRequest();
    largest = Math.max(largest, cm.tokenUsage);
  };
  for (const t of turns) {
    cm.addMessage(t.user);
    await request();
    cm.addMessage(t.call);
    cm.addMessage(t.result);
    await request();
    cm.addMessage(t.answer);
  }
  const { cacheableShare, requests } = cm.getStats().cache;
  const history = cm.getMessages();
  const written = history.filter((m) => typeof m.content === "string" && m.content.startsWith("Summary of the "));
  const tokens = written.reduce((sum, m) => sum + counter.countMessages([m]) - counter.countMessages([]), 0);
  return {
    share: cacheableShare,
    requests,
    trims,
    largest,
    summaries: { count: written.length, tokens, history: counter.countMessages(history) },
  };
}

/** One request of the trimMessages replay: what was sent, and how much of it the request before also sent. */
export interface TrimmedRequest {
  /** The request's tokens: the trimmed messages and the request's own overhead. */
  tokens: number;
  /** Tokens of the leading messages this request shares with the one before (the overhead not included). */
  sharedMessageTokens: number;
  /** The request's overhead (reply priming) alone. */
  overhead: number;
  /** The overhead and the system prompt: the part every request shares. */
  systemTokens: number;
  /** Whether trimMessages dropped anything. */
  trimmed: boolean;
}

/**
 * The session's model calls with LangChain's trimMessages to the target before every request, on
 * the whole history: what each request sends, for the cache-share and cost benchmarks alike.
 */
export async function replayTrimMessages(
  turns: Turn[],
  counter: TiktokenCounter,
  onRequest: (request: TrimmedRequest) => void,
): Promise<void> {
  const tokensById = new Map<string, number>();
  const history: BaseMessage[] = [];
  const add = (m: Msg) => {
    const id = String(history.length);
    tokensById.set(id, counter.countEachMessage([m])[0] as number);
    if (m.role === "system") history.push(new SystemMessage({ content: m.content as string, id }));
    else if (m.role === "user") history.push(new HumanMessage({ content: m.content as string, id }));
    else if (m.role === "tool") history.push(new ToolMessage({ content: m.content as string, tool_call_id: m.tool_call_id as string, id }));
    else
      history.push(
        new AIMessage({
          content: (m.content as string | null) ?? "",
          id,
          tool_calls: (m.tool_calls ?? []).map((c) => ({
            id: c.id,
            name: c.function.name,
            args: JSON.parse(c.function.arguments) as Record<string, unknown>,
          })),
        }),
      );
  };
  const overhead = counter.countMessages([]);
  add({ role: "system", content: SYSTEM });
  const systemTokens = overhead + (tokensById.get("0") ?? 0);
  const tokenCounter = (ms: BaseMessage[]) => ms.reduce((sum, m) => sum + (tokensById.get(m.id as string) ?? 0), 0);
  const target = Math.floor(WINDOW * DEFAULTS.trimAt) - overhead;
  let previous: string[] = [];
  const request = async () => {
    const trimmed = await trimMessages(history, {
      maxTokens: target,
      strategy: "last",
      tokenCounter,
      startOn: "human",
      includeSystem: true,
    });
    const ids = trimmed.map((m) => m.id as string);
    let sharedMessageTokens = 0;
    for (let i = 0; i < Math.min(ids.length, previous.length) && ids[i] === previous[i]; i++)
      sharedMessageTokens += tokensById.get(ids[i] as string) ?? 0;
    onRequest({
      tokens: tokenCounter(trimmed) + overhead,
      sharedMessageTokens,
      overhead,
      systemTokens,
      trimmed: ids.length < history.length,
    });
    previous = ids;
  };
  for (const t of turns) {
    add(t.user);
    await request();
    add(t.call);
    add(t.result);
    await request();
    add(t.answer);
  }
}

/** LangChain's trimMessages to the target before every request, on the whole history. */
async function runTrimMessages(turns: Turn[], counter: TiktokenCounter): Promise<Outcome> {
  let shared = 0;
  let total = 0;
  let requests = 0;
  let trims = 0;
  let largest = 0;
  await replayTrimMessages(turns, counter, (request) => {
    if (request.trimmed) trims++;
    shared += request.sharedMessageTokens;
    total += request.tokens;
    requests++;
    largest = Math.max(largest, request.tokens);
  });
  return { share: shared / total, requests, trims, largest };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export async function benchCacheShare(): Promise<void> {
  const counter = new TiktokenCounter({ model: "gpt-4o" });
  const turns = session();
  const lc = await runTrimMessages(turns, counter);
  console.log(
    `\n### Cacheable share of prompt tokens: ${TURNS} tool-using turns (2 requests each), ${WINDOW.toLocaleString("en-US")}-token window\n`,
  );
  console.log(
    `| mode | ctxwin (trimAt ${DEFAULTS.trimAt}, trimTo ${DEFAULTS.trimTo}) | trims / compactions | same strategy, trimTo = trimAt | @langchain/core trimMessages to the target every request | budget >= 85% |`,
  );
  console.log("|---|---|---|---|---|---|");
  const summaries: string[] = [];
  for (const mode of [TruncationMode.SLIDING_WINDOW, TruncationMode.TOKEN_BUDGET, TruncationMode.SMART, TruncationMode.SUMMARIZE]) {
    const ours = await runCtxwin(turns, mode, counter, undefined);
    const naive = await runCtxwin(turns, mode, counter, DEFAULTS.trimAt);
    if (ours.largest > WINDOW || ours.trims < 10)
      throw new Error(`cache-share bench: ${mode} sent ${ours.largest} tokens in one request and trimmed ${ours.trims} times`);
    if (mode === TruncationMode.SUMMARIZE) {
      for (const [label, run] of [
        [`trimTo ${DEFAULTS.trimTo}`, ours],
        ["trimTo = trimAt", naive],
      ] as const) {
        const { count = 0, tokens = 0, history = 0 } = run.summaries ?? {};
        summaries.push(`${count} (${tokens.toLocaleString("en-US")} of ${history.toLocaleString("en-US")} tokens) with ${label}`);
      }
    }
    console.log(
      `| ${mode}${mode === TruncationMode.SUMMARIZE ? " (extractive summarizer)" : ""} | ${pct(ours.share)} | ${ours.trims} | ${pct(naive.share)} | ${pct(lc.share)} | ${ours.share >= 0.85 ? "met" : "MISSED"} |`,
    );
  }
  console.log(`\nSummaries in the history at the end of the summarize runs: ${summaries.join("; ")}.`);
  console.log(
    `\n${lc.requests} requests per run; trimMessages trimmed before ${lc.trims} of them. Shared prefix: the tokens of a request's leading messages that the previous request had in the same places (system prompt included), over all prompt tokens.`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCacheShare();
