// Short calls: what one count of a short string (chat.json's strings of up to 200 characters, the
// budget's "one short message") costs through the public API, each library in a fresh process of
// its own, in turns. Three figures per library: the p50 of each string timed alone on its first
// count in the process ("cold": ctxwin's piece caches and gpt-tokenizer's merge cache empty), the
// p50 of the same on a second pass ("warm"), and the mean per call of a tight loop over 2,000 of
// them (best of 20 passes: what the timer and a loaded machine distort least). The empty string
// and an 8-character one show the crossing alone. `CTXWIN_BENCH_BASELINE=<folder>` adds another
// build of ctxwin beside this one (as for cold-start.ts).
//
//   npm run bench -- short-calls
import { execFileSync } from "node:child_process";
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { read } from "./tokenizers.js";

const root = dirname(dirname(fileURLToPath(import.meta.url)));

interface Case {
  name: string;
  /** Module code that sets `count` (a function of one string) for encoding `ENCODING`. */
  setup: string;
}

function cases(): Case[] {
  const ctxwin = (name: string, specifier: string): Case => ({
    name,
    setup: `const { TiktokenCounter } = await import(${JSON.stringify(specifier)}); const counter = new TiktokenCounter({ encoding: ENCODING }); count = (t) => counter.count(t);`,
  });
  const baseline = process.env.CTXWIN_BENCH_BASELINE;
  return [
    ctxwin("ctxwin", "ctxwin"),
    ...(baseline ? [ctxwin(`ctxwin, baseline (${baseline})`, pathToFileURL(join(resolve(baseline), "dist", "index.js")).href)] : []),
    {
      name: "gpt-tokenizer",
      setup: 'const gpt = await import("gpt-tokenizer/encoding/" + ENCODING); count = (t) => gpt.countTokens(t);',
    },
    {
      name: "tiktoken (WASM)",
      setup:
        'const { get_encoding } = await import("tiktoken"); const enc = get_encoding(ENCODING); count = (t) => enc.encode_ordinary(t).length;',
    },
  ];
}

interface Sample {
  cold: number;
  warm: number;
  loop: number;
  eight: number;
  empty: number;
}

function run(c: Case, encoding: string, textsFile: string): Sample {
  const script = `const ENCODING = ${JSON.stringify(encoding)}; let count; ${c.setup}
const { readFileSync } = await import("node:fs");
const texts = JSON.parse(readFileSync(${JSON.stringify(textsFile)}, "utf8"));
let sink = 0;
const p50 = () => { const s = new Float64Array(texts.length); for (let i = 0; i < texts.length; i++) { const t = texts[i]; const a = process.hrtime.bigint(); sink += count(t); s[i] = Number(process.hrtime.bigint() - a); } s.sort(); return s[s.length >> 1] / 1000; };
sink += count("warm up the call path");
const cold = p50(); const warm = p50();
const loop = (list) => { let best = Infinity; for (let r = 0; r < 20; r++) { const a = process.hrtime.bigint(); for (const t of list) sink += count(t); best = Math.min(best, Number(process.hrtime.bigint() - a) / list.length); } return best / 1000; };
const some = texts.slice(0, 2000);
const out = { cold, warm, loop: loop(some), eight: loop(some.map((t) => t.slice(0, 8))), empty: loop(some.map(() => "")) };
if (!(sink > 0)) throw new Error("no count");
console.log(JSON.stringify(out));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").at(-1) as string) as Sample;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

export function benchShortCalls(runs = Number(process.env.CTXWIN_BENCH_RUNS ?? 3)): void {
  const short = (JSON.parse(read("chat.json.xz")) as string[]).filter((s) => s.length <= 200);
  const scratch = mkdtempSync(join(tmpdir(), "ctxwin-short-calls-"));
  try {
    const textsFile = join(scratch, "short.json");
    writeFileSync(textsFile, JSON.stringify(short));
    console.log(
      `\n### Short calls: ${short.length.toLocaleString("en-US")} chat.json strings of <= 200 characters, one count per call (a fresh process per sample, median of ${runs}, cases in turns)`,
    );
    for (const encoding of ["cl100k_base", "o200k_base"]) {
      const all = cases();
      const samples = all.map(() => [] as Sample[]);
      for (let r = 0; r < runs; r++) all.forEach((c, i) => samples[i]?.push(run(c, encoding, textsFile)));
      console.log(`\n#### ${encoding}\n`);
      console.log("| library | p50, first count (cold) | p50, second count (warm) | mean per call, loop | 8 characters | empty string |");
      console.log("|---|---|---|---|---|---|");
      all.forEach((c, i) => {
        const of = (key: keyof Sample) => median((samples[i] as Sample[]).map((s) => s[key])).toFixed(2);
        console.log(`| ${c.name} | ${of("cold")} µs | ${of("warm")} µs | ${of("loop")} µs | ${of("eight")} µs | ${of("empty")} µs |`);
      });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) benchShortCalls();
