// The framework adapters: what fitting one model call costs at step N of a tool loop (the AI SDK
// middleware's transformParams on a fresh prompt, as the SDK builds one per step): the first fit,
// which runs the levels, and the next step's, which reuses what was sent; beside counting the same
// prompt once with the same counter.
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
    out.push({
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: `c${s}`, toolName: "read_file", input: { path: `src/m${s}.ts` } }],
    });
    out.push({
      role: "tool",
      content: [{ type: "tool-result", toolCallId: `c${s}`, toolName: "read_file", output: { type: "text", value: file(s) } }],
    });
  }
  return out;
}

export async function benchFrameworks(): Promise<void> {
  const counter = getCounter("gpt-4o");
  const options = { model: "gpt-4o", limits: { maxTokens: 8000, maxOutputTokens: 1000 }, logger: { warn: () => {} } };
  type Transform = NonNullable<Middleware["transformParams"]>;
  const model = {} as Parameters<Transform>[0]["model"];
  const fit = (m: Middleware, p: Params["prompt"]) => (m.transformParams as Transform)({ type: "generate", params: { prompt: p }, model });
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  await fit(contextMiddleware(options), prompt(5)); // warm-up: rank data, caches
  console.log("\n### Framework adapters: fitting one call of an AI SDK tool loop (8,000-token window)\n");
  console.log("| step | prompt tokens | levels run (first fit) | next step (earlier prompt reused) | count the prompt once |");
  console.log("|---|---|---|---|---|");
  for (const steps of [10, 55, 200]) {
    const base = prompt(steps);
    const next = prompt(steps + 1);
    const cold: number[] = [];
    const warm: number[] = [];
    const counts: number[] = [];
    for (let r = 0; r < 7; r++) {
      // The SDK builds new message objects at every step.
      const middleware = contextMiddleware(options);
      let start = process.hrtime.bigint();
      await fit(middleware, structuredClone(base));
      cold.push(Number(process.hrtime.bigint() - start));
      const p = structuredClone(next);
      start = process.hrtime.bigint();
      await fit(middleware, p);
      warm.push(Number(process.hrtime.bigint() - start));
      const q = structuredClone(base);
      start = process.hrtime.bigint();
      counter.countMessages(q as never);
      counts.push(Number(process.hrtime.bigint() - start));
    }
    console.log(
      `| ${steps} | ${counter.countMessages(base as never).toLocaleString("en-US")} | ${formatTime(median(cold))} | ${formatTime(median(warm))} | ${formatTime(median(counts))} |`,
    );
  }
}
