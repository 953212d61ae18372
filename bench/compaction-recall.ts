// `npm run accuracy:compaction`: how much of what an agent needs a summary keeps. Three scripted
// sessions of different kinds (bench/data/compaction-recall/: coding, support, data analysis), each
// with questions written before the summarizer was tuned; at each checkpoint the messages before it
// are summarized offline (ContextCompactor with extractiveSummarizer(), maxSummaryTokens 500, as a
// MessageContextManager's level 3 writes it) and a question counts as recalled when the summary
// holds every one of its answers. The figures are counts, the same on every run and machine.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { TiktokenCounter, extractiveSummarizer, type MessageLike } from "ctxwin";
import { ContextCompactor } from "ctxwin/compaction";

interface Question {
  question: string;
  /** Every item must be in the summary; an item is a list of alternatives. */
  answers: string[][];
}
interface RecallSession {
  kind: string;
  messages: MessageLike[];
  checkpoints: Array<{ through: number; questions: Question[] }>;
}

const DATA = join(import.meta.dirname, "data", "compaction-recall");
const counter = new TiktokenCounter({ model: "gpt-4o" });

export function recalled(summary: string, question: Question): boolean {
  const text = summary.toLowerCase();
  return question.answers.every((alternatives) => alternatives.some((a) => text.includes(a.toLowerCase())));
}

export async function benchCompactionRecall(options: { verbose?: boolean } = {}): Promise<{ recalled: number; asked: number }> {
  const files = readdirSync(DATA)
    .filter((f) => f.endsWith(".json"))
    .sort();
  console.log("\n### Summary recall (extractive summarizer, maxSummaryTokens 500)\n");
  console.log("| session | summarized messages | summary tokens | recalled | missed |");
  console.log("|---|---|---|---|---|");
  let total = 0;
  let asked = 0;
  for (const file of files) {
    const session = JSON.parse(readFileSync(join(DATA, file), "utf8")) as RecallSession;
    for (const { through, questions } of session.checkpoints) {
      const compactor = new ContextCompactor({ model: extractiveSummarizer(), logger: { warn: () => {} } });
      const result = await compactor.compactWithDetails(session.messages.slice(0, through), 0, counter, { preserveLast: 0 });
      const summary = result.summary?.content ?? "";
      const missed = questions.filter((q) => !recalled(summary, q));
      total += questions.length - missed.length;
      asked += questions.length;
      console.log(
        `| ${session.kind} | ${through} | ${counter.count(summary)} | ${questions.length - missed.length} / ${questions.length} | ${missed.map((q) => q.question).join("; ") || "-"} |`,
      );
      if (options.verbose) console.log(`\n${summary}\n`);
    }
  }
  console.log(`\nRecall: ${total} / ${asked} questions (${((100 * total) / asked).toFixed(0)}%).`);
  return { recalled: total, asked };
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCompactionRecall({ verbose: process.argv.includes("--verbose") });
