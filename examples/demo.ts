// `npm run demo`: a recorded 42-iteration coding-agent session replayed offline through the AI SDK
// agent loop of agent-loop.ts, with ctxwin's SPEC-08 ContextManager keeping the thread under a
// small budget and the built-in extractive summarizer writing the summaries.
import { ContextManager, extractiveSummarizer } from "ctxwin";
import { runAgentLoop } from "./agent-loop.js";
import { ReplayModel, loadSession, replayTools } from "./replay.js";

const MAX_CONTEXT_TOKENS = 8000;
const KEEP_RECENT_ITERATIONS = 3;

const session = loadSession();
const model = new ReplayModel(session);
const cm = new ContextManager({ maxContextTokens: MAX_CONTEXT_TOKENS, keepRecentIterations: KEEP_RECENT_ITERATIONS });
const fmt = (n: number) => n.toLocaleString("en-US");

console.log(`Task: ${session.task}`);
console.log(
  `Budget: maxContextTokens ${fmt(MAX_CONTEXT_TOKENS)}, keepRecentIterations ${KEEP_RECENT_ITERATIONS}, summarizer: extractive (offline)\n`,
);
console.log("iter  tools                          events  estimate");

let summarizations = 0;
const thread = await runAgentLoop({
  model,
  tools: replayTools(session),
  task: session.task,
  system: "You are a careful coding agent. Use the tools to investigate before you edit.",
  contextManager: cm,
  summaryModel: extractiveSummarizer(),
  onIteration: (r) => {
    const tools = r.done ? "(final answer)" : r.toolCalls.join(", ") + (r.errors.length ? "  [error]" : "");
    console.log(
      `${String(r.iteration).padStart(4)}  ${tools.padEnd(30).slice(0, 30)} ${String(r.events).padStart(6)}  ${fmt(r.tokens).padStart(8)}`,
    );
    if (r.summarized) {
      summarizations++;
      const s = r.summarized;
      const range = s.iterations.length > 1 ? `${s.iterations[0]}-${s.iterations[s.iterations.length - 1]}` : String(s.iterations[0]);
      console.log(
        `      -> over ${fmt(MAX_CONTEXT_TOKENS)}: summarized iteration${s.iterations.length > 1 ? "s" : ""} ${range}: ` +
          `${s.removedEvents} events replaced by ${s.iterations.length} summar${s.iterations.length > 1 ? "ies" : "y"}, ${fmt(s.tokensBefore)} -> ${fmt(s.tokensAfter)} tokens`,
      );
    }
  },
});

const final = thread.events.at(-1);
console.log(
  `\n${summarizations} summarizations; final thread: ${thread.events.length} events, ${fmt(cm.estimateThreadTokens(thread))} estimated tokens.`,
);
console.log(`Largest request the model saw: ${fmt(Math.max(...model.promptChars))} characters of prompt.`);
if (final?.type === "completion") console.log(`Final answer: ${final.result}`);
console.log("\nContext injection for the next system prompt:\n");
console.log(cm.buildContextInjection(thread));
