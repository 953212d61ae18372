// `npm run accuracy:claude` (also the last part of `npm run accuracy`): how close each way of
// counting Claude tokens comes to what Anthropic's count_tokens returned, on the recorded fixtures
// (test/fixtures/claude: 1,741 Rosetta Code documents and 501 UDHR translations, each sent as one
// user message, per tokenizer family). For each counter and family: the share of documents counted
// exactly, the share undercounted (a budget built on an undercount overflows the window), the mean
// signed error and the mean absolute error, per document, relative to the recorded count.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { Tokenizer, models } from "ai-tokenizer";
import * as claudeEncoding from "ai-tokenizer/encoding/claude";
import { count as aiTokenizerCount } from "ai-tokenizer/sdk";
import { ClaudeCounter, TiktokenCounter } from "ctxwin";
import type { ClaudeFamily } from "ctxwin/tokens";

const FIXTURES = join(import.meta.dirname, "..", "test", "fixtures", "claude");

function load(name: string, key: string) {
  const docs = gunzipSync(readFileSync(join(FIXTURES, `${name}.jsonl.gz`)))
    .toString("utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, string>)
    .map((doc) => ({ key: doc[key] as string, text: doc.text as string }));
  const counts = JSON.parse(readFileSync(join(FIXTURES, `${name}_counts.json`), "utf8")) as Record<
    ClaudeFamily,
    { model: string; counts: Record<string, number> }
  >;
  return { name, docs, counts };
}

// ai-tokenizer's newest Claude entry (its SDK count: the claude encoding x1.1 plus its frame).
const aiModel = models["anthropic/claude-opus-4.5"];
const aiTokenizer = new Tokenizer(claudeEncoding);
// Its count() throws on special-token text (`<EOT>`); count such text as text, as the API does.
aiTokenizer.count = (text: string) => aiTokenizer.encode(text, [], []).length;

// ai-tokenizer's sdk types name its Tokenizer through another declaration file than its index does.
type AiSdkTokenizer = Parameters<typeof aiTokenizerCount>[0]["tokenizer"];

const o200k = new TiktokenCounter({ encoding: "o200k_base" });
type Count = (text: string) => number;

function stats(count: Count, docs: Array<{ key: string; text: string }>, recorded: Record<string, number>) {
  let exact = 0;
  let under = 0;
  let signed = 0;
  let absolute = 0;
  for (const doc of docs) {
    const want = recorded[doc.key] as number;
    const got = count(doc.text);
    if (got === want) exact++;
    if (got < want) under++;
    signed += (got - want) / want;
    absolute += Math.abs(got - want) / want;
  }
  const pct = (x: number) => `${((100 * x) / docs.length).toFixed(1)}%`;
  const signedPct = (x: number) => `${x >= 0 ? "+" : ""}${((100 * x) / docs.length).toFixed(1)}%`;
  return [pct(exact), pct(under), signedPct(signed), pct(absolute)];
}

console.log("\n### Claude counts against Anthropic's count_tokens (one user message per document)\n");
console.log("| fixture | family (model measured) | counter | exact | undercounts | mean error | mean abs. error |");
console.log("|---|---|---|---|---|---|---|");
for (const fixture of [load("rosetta", "id"), load("udhr", "f")]) {
  for (const family of ["v3", "v4.7", "v5"] as ClaudeFamily[]) {
    const recorded = fixture.counts[family];
    const claude = new ClaudeCounter({ family });
    const counters: Array<[string, Count]> = [
      ["ctxwin ClaudeCounter", (text) => claude.countMessages([{ role: "user", content: text }])],
      ["o200k_base (TiktokenCounter, the old stand-in)", (text) => o200k.countMessages([{ role: "user", content: text }])],
      [
        "ai-tokenizer 1.0.6 (claude-opus-4.5 entry)",
        (text) =>
          aiTokenizerCount({
            tokenizer: aiTokenizer as unknown as AiSdkTokenizer,
            model: aiModel,
            messages: [{ role: "user", content: text }],
          }).total,
      ],
    ];
    for (const [name, count] of counters) {
      console.log(
        `| ${fixture.name} (${fixture.docs.length}) | ${family} (${recorded.model}) | ${name} | ${stats(count, fixture.docs, recorded.counts).join(" | ")} |`,
      );
    }
  }
}
