// The framework adapters: what fitting one model call costs at step N of a tool loop (the AI SDK
// middleware's transformParams on a fresh prompt, as the SDK builds one per step), beside counting
// the same prompt once with the same counter.
import { getCounter } from "ctxwin";
import { contextMiddleware } from "ctxwin/ai-sdk";
import { formatTime } from "./harness.js";

type Middleware = ReturnType<typeof contextMiddleware>;
type Params = Parameters<NonNullable<Middleware["transformParams"]>>[0]["params"];

/** A file's contents, 1,000 to 3,000 tokens. */
function file(step: number): string {
  const lines: string[] = [];
  for (let i = 0; i < 80 + ((step * 37) % 150); i++) lines.push(`export const value${i} = compute(${i}, ${step});`);
  return lines.join("\n");
}

function prompt(steps: number): Params["prompt"] {
  const out: Params["prompt"] = [
    { role: "system", content: "You are a careful coding agent." },
    { role: "user", content: [{ type: "text", text: "Find and fix the date bug." }] },
  ];
  for (let s = 1; s <= steps; s++) {
    out.push({ role: "assistant", content: [{ type: "tool-call", toolCallId: `c${s}`, toolName: "read_file", input: { path: `src/m${s}.ts` } }] });
    out.push({ role: "tool", content: [{ type: "tool-result", toolCallId: `c${s}`, toolName: "read_file", output: { type: "text", value: file(s) } }] });
  }
  return out;
}

export async function benchFrameworks(): Promise<void> {
  const counter = getCounter("gpt-4o");
  const middleware = contextMiddleware({ model: "gpt-4o", limits: { maxTokens: 8000, maxOutputTokens: 1000 }, logger: { warn: () => {} } });
  const transform = middleware.transformParams as NonNullable<Middleware["transformParams"]>;
  console.log("\n### Framework adapters: fitting one call of an AI SDK tool loop (8,000-token window)\n");
  console.log("| step | prompt tokens | contextMiddleware (fit) | count the prompt once | fit / count |");
  console.log("|---|---|---|---|---|");
  for (const steps of [10, 55, 200]) {
    const base = prompt(steps);
    const fresh = () => structuredClone(base); // the SDK builds new message objects at every step
    const model = {} as Parameters<typeof transform>[0]["model"];
    for (let w = 0; w < 2; w++) await transform({ type: "generate", params: { prompt: fresh() }, model });
    const samples: number[] = [];
    const counts: number[] = [];
    for (let r = 0; r < 7; r++) {
      const p = fresh();
      let start = process.hrtime.bigint();
      await transform({ type: "generate", params: { prompt: p }, model });
      samples.push(Number(process.hrtime.bigint() - start));
      const q = fresh();
      start = process.hrtime.bigint();
      counter.countMessages(q as never);
      counts.push(Number(process.hrtime.bigint() - start));
    }
    samples.sort((a, b) => a - b);
    counts.sort((a, b) => a - b);
    const fit = samples[3] as number;
    const count = counts[3] as number;
    console.log(`| ${steps} | ${counter.countMessages(base as never).toLocaleString("en-US")} | ${formatTime(fit)} | ${formatTime(count)} | ${(fit / count).toFixed(1)}x |`);
  }
}
