// Compaction the agent can undo, and a look before it happens: a recorded 69-message billing
// session (examples/data/billing-request.json) in a 6,000-token window. The preview lists what a
// compaction would clear, cut, summarize or drop and what the request would cost; the compaction
// then does exactly that; and recall reads a cleared tool result back, byte for byte.
//
//   node --import tsx examples/preview-and-recall.ts
import { readFileSync } from "node:fs";
import { ContextLimits, MessageContextManager, Recall, TruncationMode, extractiveSummarizer, type MessageLike } from "ctxwin";

type Message = MessageLike & { tool_call_id?: string };
const request = JSON.parse(readFileSync(new URL("./data/billing-request.json", import.meta.url), "utf8")) as { messages: Message[] };
const system = request.messages.filter((m) => m.role === "system");
const messages = request.messages.filter((m) => m.role !== "system");

const context = new MessageContextManager<Message>({
  model: "gpt-4o",
  mode: TruncationMode.SUMMARIZE, // offline; any AI SDK model works the same
  limits: new ContextLimits({ model: "gpt-4o", maxTokens: 6000, maxOutputTokens: 0, reservedTokens: 0 }),
  compaction: { summarizer: extractiveSummarizer(), autoTruncate: false }, // this example compacts when it says so
});
if (typeof system[0]?.content === "string") context.setSystemPrompt(system[0].content);
context.load(messages);
const recall = new Recall({ context, maxTokens: 4000 }); // no session: an in-memory cache, 8 MiB by default

// 1. The plan, nothing changed.
const plan = await context.preview({ threshold: 0.9 });
console.log(`preview: ${plan.tokensBefore} -> ${plan.tokensAfter} tokens, ${plan.units.length} units`);
for (const unit of plan.units.slice(0, 5))
  console.log(`  ${unit.action.padEnd(9)} ${unit.id.padEnd(10)} #${unit.index} frees ${unit.freed}`);
if (plan.cost) console.log(`  input per request: $${plan.cost.before.toFixed(4)} -> $${plan.cost.after.toFixed(4)}`);

// 2. The compaction does what the preview said.
const report = await context.compactIfNeeded({ threshold: 0.9 });
console.log(`compacted: ${report.tokensBefore} -> ${report.tokensAfter} tokens (the preview said ${plan.tokensAfter})`);

// 3. A cleared result names its id; recall reads the original back.
// (one whose placeholder kept error lines: the failure stays in front of the model, the rest is a recall away)
const cleared = context
  .getMessages()
  .find((m) => typeof m.content === "string" && m.content.startsWith("[tool result cleared: ") && m.content.includes("Error lines kept"));
if (cleared?.tool_call_id !== undefined) {
  console.log(`placeholder: ${String(cleared.content).split("\n")[0]}`);
  const original = messages.find((m) => m.tool_call_id === cleared.tool_call_id)?.content;
  const answer = await recall.read(cleared.tool_call_id);
  console.log(
    `recall(${JSON.stringify(cleared.tool_call_id)}): ${answer.ok ? `${answer.totalLines} lines, byte for byte: ${answer.text === original}` : answer.code}`,
  );
  const errors = await recall.read(cleared.tool_call_id, { pattern: "Error|FAIL" });
  if (errors.ok) console.log(`its error lines:\n${errors.text}`);
}
